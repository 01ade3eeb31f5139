/* A submission that does not compile (a missing declaration). */
#include <stdio.h>

int main(void) {
    printf("%d\n", undeclared_total);
    return 0;
}
