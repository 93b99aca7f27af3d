/* Hostile library: appends the path of every program that loads it to MARKER (a host path).
   Built by tests/hostile/test_escapes.py with -DMARKER="...". Loaded through the bot's
   LD_PRELOAD, it must only ever run in the bot's own program, never in a harness wrapper. */
#include <stdio.h>
#include <unistd.h>

__attribute__((constructor)) static void mark(void) {
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n < 0 ? 0 : n] = '\0';
    FILE *out = fopen(MARKER, "a");
    if (out != NULL) {
        fprintf(out, "%s\n", exe);
        fclose(out);
    }
}
