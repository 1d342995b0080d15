{
  "targets": [
    {
      "target_name": "gebe_native",
      "dependencies": ["llhttp"],
      "sources": [
        "<!@(node -p \"require('fs').readdirSync('native/src',{recursive:true}).filter(f=>f.endsWith('.cc')).sort().map(f=>'native/src/'+f.split(require('path').sep).join('/')).join(' ')\")"
      ],
      "include_dirs": [
        "<!(node -p \"require('node-addon-api').include_dir\")",
        "native/src",
        "native/third_party/llhttp",
        "native/third_party/nghttp2"
      ],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-fno-rtti", "-std=gnu++17", "-std=gnu++20"],
      "cflags_cc": ["-std=c++17", "-fexceptions", "-frtti", "-O3", "-pthread", "-Wall", "-Wno-unused-parameter"],
      "ldflags": ["-pthread", "-ldl"],
      "libraries": ["-ldl"],
      "xcode_settings": {
        "GCC_ENABLE_CPP_EXCEPTIONS": "YES",
        "CLANG_CXX_LANGUAGE_STANDARD": "c++17",
        "OTHER_CPLUSPLUSFLAGS": ["-O3"]
      }
    },
    {
      "target_name": "llhttp",
      "type": "static_library",
      "sources": ["native/third_party/llhttp/api.c", "native/third_party/llhttp/http.c", "native/third_party/llhttp/llhttp.c"],
      "include_dirs": ["native/third_party/llhttp"],
      "cflags!": ["-O0", "-O1", "-O2", "-Os"],
      "cflags_c": ["-O3", "-fPIC", "-fvisibility=hidden", "-w"],
      "xcode_settings": {"OTHER_CFLAGS": ["-O3", "-fvisibility=hidden", "-w"], "GCC_SYMBOLS_PRIVATE_EXTERN": "YES"}
    }
  ]
}
