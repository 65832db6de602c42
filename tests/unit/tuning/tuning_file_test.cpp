#include <gtest/gtest.h>

#include "tuning/tuning_file.hpp"
