#include "ember/core/version.h"

namespace ember {
const char* version() { return EMBER_VERSION_STRING; }
}  // namespace ember
