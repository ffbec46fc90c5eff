/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "a/internal.h"
#include "b/internal.h"
#include "c/c.h"
#include "b/b.h"
