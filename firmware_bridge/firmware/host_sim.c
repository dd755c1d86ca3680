/* seatsim: the board's protocol code (proto.c, board.c, debounce.c) on a POSIX tty, so the
 * Python host can be tested against the very C that runs on the ATmega328P.
 *
 *   seatsim TTY|- EEPROM_FILE [SEATS]     (- : no serial port, for the framing commands)
 * stdin, one command a line: "press SEAT BUTTON [long]", "status", "reset", "quit", and
 * "frame HEX" / "feed HEX" (framing alone, to compare proto.c with protocol.py), and
 * "raw SEAT BUTTON LEVEL MS" (one raw sample through the debouncer: "deb ..." or "deb none").
 * stdout, one line a change: "ready", "out leds=.. alarm=A buzz=B id=I lost=L", "session 0|1",
 * "press ok|full SEAT BUTTON", "status pending N boot B session S". */
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "board.h"
#include "debounce.h"
#include "hal.h"
#include "proto.h"

#define EEPROM_SIZE 1024

static int tty = -1;
static uint8_t eeprom[EEPROM_SIZE];
static const char *eeprom_path;
static struct timespec t0;
static uint8_t seats = 4;

uint32_t hal_millis(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint32_t)((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
}

void hal_uart_write(const uint8_t *data, uint8_t len)
{
    while (len && tty >= 0) {
        ssize_t n = write(tty, data, len);
        if (n < 0) {
            struct pollfd p = {tty, POLLOUT, 0};
            poll(&p, 1, 10);
            continue;
        }
        data += n;
        len = (uint8_t)(len - n);
    }
}

void hal_eeprom_read(uint16_t addr, void *dst, uint8_t len)
{
    if (addr + len <= EEPROM_SIZE)
        memcpy(dst, eeprom + addr, len);
}

void hal_eeprom_write(uint16_t addr, const void *src, uint8_t len)
{
    if (addr + len > EEPROM_SIZE || memcmp(eeprom + addr, src, len) == 0)
        return;
    memcpy(eeprom + addr, src, len);
    FILE *f = fopen(eeprom_path, "wb");
    if (f) {
        fwrite(eeprom, 1, EEPROM_SIZE, f);
        fclose(f);
    }
}

uint32_t hal_entropy(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (uint32_t)t.tv_nsec ^ (uint32_t)getpid() << 16;
}

void hal_apply(const struct outputs *o)
{
    printf("out leds=");
    for (uint8_t i = 0; i < seats; i++)
        printf(i ? ",%u" : "%u", o->leds[i]);
    printf(" alarm=%u buzz=%u id=%u lost=%u\n", o->alarm, o->buzz, o->buzz_id, o->host_lost);
    fflush(stdout);
}

static void boot(uint8_t reason)
{
    FILE *f = fopen(eeprom_path, "rb");
    memset(eeprom, 0xFF, sizeof eeprom); /* erased AVR EEPROM reads 0xFF */
    if (f) {
        if (fread(eeprom, 1, EEPROM_SIZE, f) != EEPROM_SIZE)
            memset(eeprom, 0xFF, sizeof eeprom);
        fclose(f);
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    board_init(seats, reason);
    printf("boot %u pending %u\n", board_boot(), board_pending());
    fflush(stdout);
}

static int hex_in(const char *s, uint8_t *out, int max)
{
    int n = 0;
    unsigned v;
    while (n < max && sscanf(s, "%2x", &v) == 1) {
        out[n++] = (uint8_t)v;
        s += 2;
    }
    return n;
}

static void hex_out(const uint8_t *d, int n)
{
    for (int i = 0; i < n; i++)
        printf("%02x", d[i]);
}

/* "frame HEXBODY": the wire bytes proto.c makes of a body. "feed HEXBYTES": what a fresh
 * decoder accepts from a stream: one "body HEX" line per frame, then "bad N". */
static void framing(char *line)
{
    static uint8_t in[4096];
    uint8_t out[PROTO_MAX_ENCODED + 1], body[PROTO_MAX_BODY], len;
    if (strncmp(line, "frame ", 6) == 0) {
        int n = hex_in(line + 6, in, PROTO_MAX_BODY + 1);
        uint8_t m = frame_encode(in, (uint8_t)n, out);
        printf("frame ");
        hex_out(out, m);
        printf("\n");
        return;
    }
    struct frame_decoder d;
    decoder_init(&d);
    int n = hex_in(line + 5, in, sizeof in);
    for (int i = 0; i < n; i++) {
        if (decoder_feed(&d, in[i], body, &len) == FEED_FRAME) {
            printf("body ");
            hex_out(body, len);
            printf("\n");
        }
    }
    printf("bad %u\n", d.bad);
}

static struct debouncer deb;

static int command(char *line)
{
    unsigned s, k, level, ms;
    struct deb_event e;
    char kind[8] = "";
    if (strncmp(line, "quit", 4) == 0)
        return 0;
    if (strncmp(line, "frame ", 6) == 0 || strncmp(line, "feed ", 5) == 0) {
        framing(line);
    } else if (sscanf(line, "raw %u %u %u %u", &s, &k, &level, &ms) == 4) {
        /* One raw button sample at board time ms, through the firmware's debouncer. */
        if (debounce_sample(&deb, (uint8_t)s, (uint8_t)k, (uint8_t)level, ms, &e))
            printf("deb %u %u %u %u\n", e.seat, e.button, e.kind, (unsigned)e.ms);
        else
            printf("deb none\n");
    } else if (strncmp(line, "status", 6) == 0) {
        printf("status pending %u boot %u session %u\n", board_pending(), board_boot(),
               board_session());
    } else if (strncmp(line, "reset", 5) == 0) {
        boot(RR_EXTERNAL);
    } else if (sscanf(line, "press %u %u %7s", &s, &k, kind) >= 2) {
        uint8_t ok = board_press((uint8_t)s, (uint8_t)k,
                                 strcmp(kind, "long") == 0 ? PRESS_LONG : PRESS_SHORT, hal_millis());
        printf("press %s %u %u\n", ok ? "ok" : "full", s, k);
    } else {
        printf("error unknown command: %s", line);
    }
    fflush(stdout);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: seatsim TTY EEPROM_FILE [SEATS]\n");
        return 2;
    }
    eeprom_path = argv[2];
    if (argc > 3)
        seats = (uint8_t)atoi(argv[3]);
    if (strcmp(argv[1], "-") != 0) {
        tty = open(argv[1], O_RDWR | O_NOCTTY | O_NONBLOCK);
        if (tty < 0) {
            perror(argv[1]);
            return 1;
        }
    }
    struct termios tio;
    if (tty >= 0 && tcgetattr(tty, &tio) == 0) {
        cfmakeraw(&tio);
        tcsetattr(tty, TCSANOW, &tio);
    }
    debounce_init(&deb);
    boot(RR_POWER_ON);
    printf("ready\n");
    fflush(stdout);

    static char line[10000];
    size_t used = 0;
    uint8_t session = 0;
    for (;;) {
        struct pollfd p[2] = {{tty, POLLIN, 0}, {STDIN_FILENO, POLLIN, 0}};
        poll(p, 2, 5);
        if (p[0].revents & POLLIN) {
            uint8_t buf[256];
            ssize_t n = read(tty, buf, sizeof buf);
            for (ssize_t i = 0; i < n; i++)
                board_rx(buf[i]);
        }
        if (p[1].revents & (POLLIN | POLLHUP)) {
            ssize_t n = read(STDIN_FILENO, line + used, sizeof line - 1 - used);
            if (n <= 0)
                return 0;
            used += (size_t)n;
            line[used] = 0;
            char *nl;
            while ((nl = strchr(line, '\n')) != NULL) {
                *nl = 0;
                if (!command(line))
                    return 0;
                used -= (size_t)(nl + 1 - line);
                memmove(line, nl + 1, used + 1);
            }
            if (used >= sizeof line - 1)
                used = 0;
        }
        board_poll();
        if (board_session() != session) {
            session = board_session();
            printf("session %u\n", session);
            fflush(stdout);
        }
    }
}
