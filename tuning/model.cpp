#include "tuning/model.hpp"
