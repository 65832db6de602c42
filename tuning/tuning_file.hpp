// The tuning file (helper in progress).
#pragma once

#include "tuning/costs.hpp"
