#include "core/domain/errors.h"
