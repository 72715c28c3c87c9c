/* A stand-in bcryptprimitives.dll for the Windows tests under Wine 8
 * (Debian 12), whose own lacks ProcessPrng: Rust's standard library (1.78
 * and later) takes its random bytes from ProcessPrng, so without it every
 * test binary stops at start. This one fills the buffer from RtlGenRandom
 * (advapi32's SystemFunction036), which Wine has. Only scripts/cross-test.sh
 * builds it, into its own wine prefix; nothing of it ships (Windows 8 and
 * later have ProcessPrng). */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        /* RtlGenRandom takes a ULONG length: feed it at most 1 GiB a call. */
        ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!SystemFunction036(data, n))
            return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}
