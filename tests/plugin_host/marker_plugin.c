/* A library whose constructor leaves a mark: it appends a line to the file named by
 * AGENTRT_TEST_PLUGIN_MARKER. Its code runs the moment it is opened, before any query,
 * so the mark proves whether the host opened it (tests/plugin_host/plugin_files_test.cpp,
 * tests/api/plugin_refusal_test.cpp). It is no agentrt plugin: opened, it is refused. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((constructor)) static void leave_a_mark(void) {
  const char* path = getenv("AGENTRT_TEST_PLUGIN_MARKER");
  FILE* file;
  if (path == NULL) return;
  file = fopen(path, "a");
  if (file == NULL) return;
  fputs("opened\n", file);
  fclose(file);
}
