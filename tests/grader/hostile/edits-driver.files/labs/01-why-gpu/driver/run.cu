// A hostile driver: if the grader took it, every launch would "succeed" without running a kernel.
#include "lab.h"
