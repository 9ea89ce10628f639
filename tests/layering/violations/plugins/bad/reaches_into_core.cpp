#include "core/engine/engine.h"
