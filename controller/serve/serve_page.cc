#include "controller/serve/serve_page.h"

extern const char kServePageHtml[];
extern const char kServePageJs[];
extern const char kServePageCss[];

namespace iofleet::controller {

std::string_view ServePageHtml() { return kServePageHtml; }
std::string_view ServePageJs() { return kServePageJs; }
std::string_view ServePageCss() { return kServePageCss; }
std::string_view ServePageCsp() {
  return "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
         "frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
}

}  // namespace iofleet::controller
