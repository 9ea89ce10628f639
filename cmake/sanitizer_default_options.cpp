// Built into every executable of a sanitizer build (cmake/SanitizerDefaults.cmake):
// the sanitizer runtimes' defaults for this tree.
//
// GCC up to 13 ships a sanitizer runtime whose __tls_get_addr interceptor takes a
// dynamic TLS block whose address is 16 bytes past a page boundary for the header glibc
// dropped in 2.25, and reads the two words before it as a range. Our plugins are
// dlopen()ed and use thread_local, so their TLS blocks come from malloc and land there
// now and then; LeakSanitizer's stop-the-world tracer then dies at exit with "Tracer
// caught signal 11" (a crash of the checker, not a finding; it failed CI once in about
// 600 tests). With the interceptor off, those blocks are ordinary heap chunks reached
// through the thread's DTV, so leak checking still sees them. ASAN_OPTIONS from the
// environment are parsed after these and win.
extern "C" const char* __asan_default_options() {
  return "intercept_tls_get_addr=0";
}

// Poco's TCPServerDispatcher (allocated in TCPServer's constructor) takes a reference
// for each worker thread it hands itself to and drops it when that thread runs it. A
// connection accepted just before shutdown can get a pooled thread that the pool stops
// before it ever runs, and that reference stays: Poco's own source says "small chance
// of leaking if threadpool is stopped before this work runs, but better than a dangling
// pointer". The dispatcher, with the connection factory and pipeline it holds, is then
// unreachable at exit (seen once in CI under load). Suppressed by its allocation site
// only; what it holds counts as reachable through it, anything else still reports.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:Poco::Net::TCPServer::TCPServer\n";
}
