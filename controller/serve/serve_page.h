// The page of iofleet serve (controller/serve/page/: index.html, page.js, page.css, compiled in
// by cmake/embed_text.cmake) and the Content-Security-Policy it is served with.
#pragma once

#include <string_view>

namespace iofleet::controller {

std::string_view ServePageHtml();
std::string_view ServePageJs();
std::string_view ServePageCss();
// Scripts and styles from this origin only, requests to this origin only, never framed.
std::string_view ServePageCsp();

}  // namespace iofleet::controller
