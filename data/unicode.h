#pragma once
// The Unicode facts BertTokenizer needs, answered by utf8proc (no table of Ember's own):
// general categories, simple lower-case mapping and NFD. Code points come from and go to UTF-8
// through core/io/utf8.h. Private to data/ (not installed): utf8proc is a private dependency
// of libember.
#include <cstddef>
#include <string>

namespace ember::data::unicode {

/// General category tests. "Other" is Cc, Cf, Co or Cs; an unassigned code point (Cn) is not
/// "other" here, as in Hugging Face's tokenizers (its category tables list assigned code
/// points only).
bool is_other(char32_t c);
/// Unicode's White_Space property: Zs, Zl, Zp, U+0009..U+000D and U+0085.
bool is_white_space(char32_t c);
/// P* (Pc, Pd, Ps, Pe, Pi, Pf, Po).
bool is_punctuation(char32_t c);
/// Mn, what BERT's accent stripping removes after NFD.
bool is_nonspacing_mark(char32_t c);

/// The canonical combining class (0 for a starter: canonical ordering never moves a character
/// across one).
int combining_class(char32_t c);

/// The canonical decomposition (NFD) of s: decomposed and canonically ordered.
std::u32string nfd(const std::u32string& s);
/// c's full lower-case mapping appended to out: the simple mapping for every code point but
/// U+0130, whose unconditional full mapping is "i" + U+0307 (SpecialCasing.txt; the only
/// unconditional one of more than one code point). Context-dependent rules (final sigma) are
/// not applied: Rust's char::to_lowercase, which Hugging Face's tokenizers uses, applies none.
void append_lower(std::u32string& out, char32_t c);

}  // namespace ember::data::unicode
