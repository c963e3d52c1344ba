# Sourced by the bench scripts: SILT = $SILT, else build/bench/silt, else build/release/silt;
# exits 2 when there is none. Needs ROOT.
SILT=${SILT:-}
if [ -z "$SILT" ]; then
  for c in "$ROOT/build/bench/silt" "$ROOT/build/release/silt"; do
    if [ -x "$c" ]; then SILT=$c; break; fi
  done
fi
[ -n "$SILT" ] && [ -x "$SILT" ] || { echo "bench: no silt binary (build first, or set SILT=)" >&2; exit 2; }
