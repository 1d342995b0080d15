// Finds and loads AscendCL at run time: $ASCEND_HOME_PATH/lib64, then $ASCEND_TOOLKIT_HOME/lib64,
// then the usual install locations. Libraries under devlib/ are link-only stubs and are never
// loaded. Loaded once per process (aclInit too; aclFinalize is never called because ACL cannot
// be initialised again in the same process). A failed search is not cached, so a later load
// can succeed once the environment is fixed.
#pragma once

#include <string>
#include <vector>

#include "ascend/acl_api.h"

namespace gebe::acl {

// The process-wide API, loading it on first use; throws EngineError naming every place looked.
const Api& Library();

// The directories searched, in order (for messages and docs).
std::vector<std::string> SearchDirectories();

// Throws EngineError "<function> failed with AscendCL error <code>: <aclGetRecentErrMsg()>"
// (plus `context`) when ret != success.
void Check(aclError ret, const char* function, const std::string& context = "");

}  // namespace gebe::acl
