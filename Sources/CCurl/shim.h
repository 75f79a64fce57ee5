// libcurl (Debian: libcurl4-openssl-dev) for HTTPCore's upstream client. curl_easy_setopt, curl_easy_getinfo and
// curl_multi_setopt are variadic, which Swift cannot call: these typed wrappers pass one argument each.
#include <curl/curl.h>

static inline CURLcode flow_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode flow_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode flow_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode flow_curl_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode flow_curl_easy_setopt_write(CURL *handle, size_t (*function)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, function);
}

static inline CURLcode flow_curl_easy_setopt_header(CURL *handle, size_t (*function)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, function);
}

static inline CURLcode flow_curl_easy_setopt_close_socket(CURL *handle, int (*function)(void *, curl_socket_t)) {
    return curl_easy_setopt(handle, CURLOPT_CLOSESOCKETFUNCTION, function);
}

static inline CURLcode flow_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode flow_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode flow_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

static inline CURLMcode flow_curl_multi_setopt_pointer(CURLM *multi, CURLMoption option, void *value) {
    return curl_multi_setopt(multi, option, value);
}

static inline CURLMcode flow_curl_multi_setopt_socket(
    CURLM *multi, int (*function)(CURL *, curl_socket_t, int, void *, void *)) {
    return curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, function);
}

static inline CURLMcode flow_curl_multi_setopt_timer(CURLM *multi, int (*function)(CURLM *, long, void *)) {
    return curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, function);
}

/// The easy handle and result of a CURLMSG_DONE message (the union member Swift does not import by name).
static inline CURLcode flow_curl_message_result(CURLMsg *message) { return message->data.result; }
