#include <gtest/gtest.h>

#include "tuning/model.hpp"
