/* Unit tests of the core (links libovcore alone). */
#include "config.h"

#include "tests/unit/tap.h"

int main(void)
{
	return tap_done();
}
