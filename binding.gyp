{
  "target_defaults": {
    # -fwrapv: signed integer arithmetic wraps, as two's complement hardware and ONNX Runtime's results
    # do. A model's integer Add, Mul, Neg, CumSum or ReduceProd can overflow on values a client sends,
    # and without the flag that is undefined behaviour the optimiser may exploit. Every native build
    # (tests, sanitizers, the fuzzer) passes it too, so they compile the same semantics.
    "cflags!": ["-fno-exceptions"],
    "cflags_cc!": ["-fno-exceptions", "-fno-rtti", "-std=gnu++17", "-std=gnu++20"],
    "cflags_cc": ["-std=c++17", "-fexceptions", "-frtti", "-O3", "-fwrapv", "-pthread", "-Wall", "-Wno-unused-parameter"],
    "xcode_settings": {
      "GCC_ENABLE_CPP_EXCEPTIONS": "YES",
      "CLANG_CXX_LANGUAGE_STANDARD": "c++17",
      "OTHER_CPLUSPLUSFLAGS": ["-O3", "-fwrapv"]
    }
  },
  "targets": [
    {
      "target_name": "gebe_core",
      "type": "static_library",
      "dependencies": ["llhttp", "simdjson"],
      "include_dirs": [
        "<!(node -p \"require('node-addon-api').include_dir\")",
        "native/src",
        "native/third_party/llhttp",
        "node_modules/@nozbe/simdjson/src",
        "native/third_party/nghttp2",
        "native/third_party/zlib",
        "native/third_party/kissfft"
      ],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS", "BUILDING_NODE_EXTENSION"],
      "direct_dependent_settings": {
        "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")", "native/src"],
        "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS"]
      },
      "sources": [
        "<!@(node -p \"require('fs').readdirSync('native/src',{recursive:true}).filter(f=>f.endsWith('.cc')&&f!=='addon.cc').sort().map(f=>'native/src/'+f.split(require('path').sep).join('/')).join(' ')\")"
      ]
    },
    {
      "target_name": "gebe_native",
      "dependencies": ["gebe_core", "llhttp", "simdjson"],
      "sources": ["native/src/addon.cc"],
      "ldflags": ["-pthread", "-ldl", "-Wl,--whole-archive", "<(PRODUCT_DIR)/obj.target/gebe_core.a", "-Wl,--no-whole-archive"],
      "libraries": ["-ldl"],
      "xcode_settings": {"OTHER_LDFLAGS": ["-Wl,-force_load,<(PRODUCT_DIR)/libgebe_core.a"]}
    },
    {
      "target_name": "gebe_native_test",
      "dependencies": ["gebe_core", "llhttp", "simdjson"],
      "sources": [
        "native/src/addon.cc",
        "<!@(node -p \"require('fs').readdirSync('native/test/bindings').filter(f=>f.endsWith('.cc')).sort().map(f=>'native/test/bindings/'+f).join(' ')\")"
      ],
      "ldflags": ["-pthread", "-ldl", "-Wl,--whole-archive", "<(PRODUCT_DIR)/obj.target/gebe_core.a", "-Wl,--no-whole-archive"],
      "libraries": ["-ldl"],
      "xcode_settings": {"OTHER_LDFLAGS": ["-Wl,-force_load,<(PRODUCT_DIR)/libgebe_core.a"]}
    },
    {
      "target_name": "llhttp",
      "type": "static_library",
      "sources": ["native/third_party/llhttp/api.c", "native/third_party/llhttp/http.c", "native/third_party/llhttp/llhttp.c"],
      "include_dirs": ["native/third_party/llhttp"],
      "cflags!": ["-O0", "-O1", "-O2", "-Os"],
      "cflags_c": ["-O3", "-fPIC", "-fvisibility=hidden", "-w"],
      "xcode_settings": {"OTHER_CFLAGS": ["-O3", "-fvisibility=hidden", "-w"], "GCC_SYMBOLS_PRIVATE_EXTERN": "YES"}
    },
    {
      "target_name": "simdjson",
      "type": "static_library",
      "sources": ["node_modules/@nozbe/simdjson/src/simdjson.cpp"],
      "cflags!": ["-O0", "-O1", "-O2", "-Os", "-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-fno-rtti", "-std=gnu++17", "-std=gnu++20"],
      "cflags_cc": ["-std=c++17", "-O3", "-fPIC", "-fvisibility=hidden", "-fexceptions", "-w"],
      "xcode_settings": {"OTHER_CPLUSPLUSFLAGS": ["-O3", "-fvisibility=hidden", "-w"], "GCC_SYMBOLS_PRIVATE_EXTERN": "YES", "GCC_ENABLE_CPP_EXCEPTIONS": "YES"}
    }
  ]
}
