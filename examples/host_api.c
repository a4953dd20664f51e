/* A host program on libkohaku's stable API (include/kohaku/api.h): open the
 * default machine, read the node's CAPS, put a word in DRAM and read it
 * back, print the cycles the accesses took. Build it against an installed
 * kohaku with
 *   cc -o host_api examples/host_api.c $(pkg-config --cflags --libs kohaku)
 */
#include <inttypes.h>
#include <stdio.h>

#include <kohaku/api.h>

int main(int argc, char **argv)
{
    char err[512];
    kh_dev *d;
    int rc = kh_dev_open(&d, argc > 1 ? argv[1] : "default", NULL, NULL, 0, err, sizeof err);
    if (rc) {
        fprintf(stderr, "host_api: %s: %s\n", kh_status_name(rc), err);
        return 1;
    }
    uint64_t caps = 0, back = 0;
    /* node control window of mesh 0 at 0x80_0000, CAPS at 0x10; mesh 0's
     * DRAM at 1 << 40 (control.md §9.2) */
    if ((rc = kh_dev_read64(d, 0x800010, &caps)) || (rc = kh_dev_write64(d, UINT64_C(1) << 40, 0x1234)) ||
        (rc = kh_dev_read64(d, UINT64_C(1) << 40, &back))) {
        fprintf(stderr, "host_api: %s: %s\n", kh_status_name(rc), kh_dev_message(d));
        kh_dev_close(d);
        return 1;
    }
    printf("api %u.%u, CAPS 0x%016" PRIx64 ", DRAM word 0x%" PRIx64 ", %" PRIu64 " cycles\n",
           kh_api_version() >> 16, kh_api_version() & 0xFFFF, caps, back, kh_dev_cycles(d));
    /* an unaligned access is refused, naming the address */
    rc = kh_dev_read64(d, 0x800011, &back);
    printf("%s: %s\n", kh_status_name(rc), kh_dev_message(d));
    kh_dev_close(d);
    return 0;
}
