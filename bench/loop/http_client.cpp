#include "http_client.h"

#include <curl/curl.h>

#include <cctype>
#include <mutex>

namespace loop_bench {
namespace {

size_t append(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

}  // namespace

std::string HttpResponse::header(const std::string& name) const {
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  const std::string text = lower(headers);
  const size_t at = text.find("\n" + lower(name) + ":");
  if (at == std::string::npos) return "";
  size_t begin = at + name.size() + 2;
  while (begin < headers.size() && headers[begin] == ' ') ++begin;
  const size_t end = headers.find_first_of("\r\n", begin);
  return headers.substr(begin, end - begin);
}

HttpClient::HttpClient() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  easy_ = curl_easy_init();
}

HttpClient::~HttpClient() {
  curl_easy_cleanup(easy_);
}

HttpResponse HttpClient::request(const std::string& method, const std::string& url,
                                 const std::string& body, const std::vector<std::string>& headers) {
  HttpResponse response;
  curl_slist* list = curl_slist_append(nullptr, "Expect:");
  for (const std::string& h : headers) list = curl_slist_append(list, h.c_str());
  curl_easy_setopt(easy_, CURLOPT_URL, url.c_str());
  curl_easy_setopt(easy_, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(easy_, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(easy_, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy_, CURLOPT_TIMEOUT_MS, 30000L);
  curl_easy_setopt(easy_, CURLOPT_FRESH_CONNECT, fresh_ ? 1L : 0L);
  curl_easy_setopt(easy_, CURLOPT_FORBID_REUSE, fresh_ ? 1L : 0L);
  if (method == "GET") {
    curl_easy_setopt(easy_, CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(easy_, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(easy_, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  }
  curl_easy_setopt(easy_, CURLOPT_WRITEFUNCTION, append);
  curl_easy_setopt(easy_, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(easy_, CURLOPT_HEADERFUNCTION, append);
  curl_easy_setopt(easy_, CURLOPT_HEADERDATA, &response.headers);
  const CURLcode code = curl_easy_perform(easy_);
  curl_slist_free_all(list);
  if (code != CURLE_OK) {
    response.body = curl_easy_strerror(code);
    return response;
  }
  curl_easy_getinfo(easy_, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

}  // namespace loop_bench
