// snail-core: tasks, handler globals and suspending waits for WebAssembly
// programs run by the snail-core JSPI scheduler. Include this one header.
#pragma once

#include "snail/abi.h"
#include "snail/handler.hpp"
#include "snail/modules.hpp"
#include "snail/services.hpp"
#include "snail/status.hpp"
#include "snail/task.hpp"
