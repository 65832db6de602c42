#include "tuning/tuning_file.hpp"
