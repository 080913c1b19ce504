// CRC-32 (IEEE 802.3, reflected) bitwise and table-driven; both must give the
// standard check value 0xCBF43926 for "123456789" and agree on a longer buffer.
#include <stdint.h>
#include <stdio.h>

static uint32_t crc_bitwise(const uint8_t *p, unsigned n)
{
    uint32_t crc = 0xffffffffu;
    while (n--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
    }
    return ~crc;
}

static uint32_t table[256];

static uint32_t crc_table(const uint8_t *p, unsigned n)
{
    uint32_t crc = 0xffffffffu;
    while (n--)
        crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

static uint8_t buf[2048];

// The ISS benchmark builds this program with a large REPEAT to get a long run.
#ifndef REPEAT
#define REPEAT 1
#endif

int main(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xedb88320u & -(c & 1));
        table[i] = c;
    }
    const uint8_t check[] = "123456789";
    uint32_t a = crc_bitwise(check, 9), b = crc_table(check, 9);
    if (a != 0xcbf43926u || b != 0xcbf43926u) {
        printf("crc: check value wrong: %08x %08x\n", (unsigned)a, (unsigned)b);
        return 1;
    }
    for (unsigned i = 0; i < sizeof(buf); i++)
        buf[i] = (uint8_t)(i * 131 + (i >> 3));
    for (int r = 0; r < REPEAT; r++) {
        a = crc_bitwise(buf, sizeof(buf));
        b = crc_table(buf, sizeof(buf));
        buf[r % sizeof(buf)] ^= (uint8_t)a;
    }
    if (a != b) {
        printf("crc: implementations disagree\n");
        return 2;
    }
    printf("crc: check %08x, buffer %08x\n", 0xcbf43926u, (unsigned)a);
    return 0;
}
