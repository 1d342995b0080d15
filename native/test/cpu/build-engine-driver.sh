# Sourced by run-asan.sh and run-tsan.sh: builds the cpu engine (no N-API: *binding* and *_js.cc files
# stay out) and engine_driver.cc
# into "$out/engine_driver" with $CXX $CXXFLAGS. Objects are kept in "$out/obj" and rebuilt when
# their source or any engine header is newer, so a second sanitizer run only recompiles what changed.
# engine_objects SRC... prints those sources' objects, so the kernel tests link what was already built.
engine_objects() {
  local src
  for src in "$@"; do echo "$out/obj/$(echo "$src" | tr / _).o"; done
}
build_engine_driver() {
  local jobs=$1
  mkdir -p "$out/obj"
  local newest_header sources stale=() src obj
  newest_header=$(find native/src native/test/cpu -name '*.h' -printf '%T@ %p\n' | sort -n | tail -1 | cut -d' ' -f2)
  sources=$(find native/src/cpu native/src/engine -name '*.cc' ! -name '*binding*' ! -name '*_js.cc' | sort; echo native/test/cpu/engine_driver.cc)
  for src in $sources; do
    obj=$(engine_objects "$src")
    if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ "$newest_header" -nt "$obj" ]; then stale+=("$src"); fi
  done
  if [ ${#stale[@]} -gt 0 ]; then
    printf '%s\n' "${stale[@]}" | xargs -P "$jobs" -I{} sh -c \
      'exec $CXX $CXXFLAGS -c "$1" -o "$2/obj/$(echo "$1" | tr / _).o"' _ {} "$out"
  fi
  $CXX $CXXFLAGS "$out"/obj/*.o -o "$out/engine_driver"
}
