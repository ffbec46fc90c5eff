/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tests/unit/unit.h"
#include "b/internal.h"
