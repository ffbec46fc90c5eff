/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "a/a.h"
#include "b/b.h"
#include "b/more.h"
#include "ipibench/modes.h"
