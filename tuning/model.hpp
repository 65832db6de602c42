// The per-level Hockney model of a communication tree (helper in progress).
#pragma once

#include "tuning/costs.hpp"
