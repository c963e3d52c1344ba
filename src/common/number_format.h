// Java/Spark-compatible number text: what Java's Double.toString, Float.toString and
// BigDecimal.toString print (Spark's CAST to STRING, Delta's partition values and stats, JSON),
// and exact decimal text → unscaled integer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace silt {

// Java's Double.toString / Float.toString: shortest round-trip digits; plain notation with at
// least one fraction digit when 1e-3 <= |v| < 1e7 ("100.0", "0.001"), else "d.dddE[-]n"
// ("1.0E7", "1.2345E-5"); "NaN", "Infinity", "-Infinity", "-0.0".
std::string FormatJavaDouble(double v);
std::string FormatJavaFloat(float v);

// The decimal digits of `v` with a leading '-' when negative ("-170141…").
std::string Int128ToDecimalString(__int128 v);

// unscaled × 10^-scale in plain notation with exactly `scale` fraction digits ("-0.050" for
// -50 at scale 3); a scale <= 0 prints the unscaled digits.
std::string FormatPlainDecimal(__int128 unscaled, int scale);

// Java's BigDecimal.toString of unscaled × 10^-scale: plain unless the adjusted exponent is
// below -6 ("-3.1661E-8", "0E-10"). This is how Spark writes decimals in stats JSON.
std::string FormatJavaBigDecimal(__int128 unscaled, int scale);

// Exact decimal text → unscaled value at `scale` (sign, digits, optional '.', optional exponent).
// Extra fraction digits are rounded HALF_UP. False if malformed or more than `precision` digits.
bool ParseDecimalText(std::string_view text, int precision, int scale, __int128* unscaled);

}  // namespace silt
