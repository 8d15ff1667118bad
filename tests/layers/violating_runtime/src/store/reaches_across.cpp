// A store source that reaches a private header of the workers layer through "../".
#include "../workers/group_commit.hpp"
