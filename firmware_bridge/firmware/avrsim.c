/* avrsim: runs the real ATmega328P image (build/seatctl.elf) in simavr, in real time, with
 * its UART on a tty and its button matrix and outputs under test control. It tests what the
 * host build cannot: the ISRs, UART set-up, timer, matrix scan, EEPROM and watchdog.
 *
 *   avrsim ELF TTY
 * stdin, one command a line: "press SEAT BUTTON", "release SEAT BUTTON", "tap SEAT BUTTON MS"
 * (held for MS of board time, whatever the simulation speed), "reset [MS]" (a reset-pin
 * pulse now, or after MS of board time), "quit" (prints
 * "speed X", board time over wall time).
 * stdout: "ready", and "pins LED0..LED5 ALARM BUZZER" (0/1 each) whenever an output changes. */
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <avr_ioport.h>
#include <avr_uart.h>
#include <sim_avr.h>
#include <sim_elf.h>

#define F_CPU 16000000UL
#define PORTB_ADDR 0x25
#define PORTC_ADDR 0x28
#define DDRD_ADDR 0x2A
#define MCUSR_ADDR 0x54
#define SEATS 6
#define BUTTONS 3

static int tty = -1;
static uint8_t held[SEATS][BUTTONS];
static avr_cycle_count_t release_at[SEATS][BUTTONS];
static avr_irq_t *col_irq[BUTTONS];
static avr_irq_t *uart_in;

static void uart_out(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    uint8_t c = (uint8_t)value;
    while (write(tty, &c, 1) < 0) {
        struct pollfd p = {tty, POLLOUT, 0};
        poll(&p, 1, 10);
    }
}


static uint64_t wall_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000u + (uint64_t)t.tv_nsec / 1000u;
}

/* The diode matrix: a column reads low when a held button's row is driven (DDRD bit set,
 * PORTD low). */
static int col_level[BUTTONS] = {-1, -1, -1};

static void update_columns(avr_t *avr)
{
    int *last = col_level;
    uint8_t ddrd = avr->data[DDRD_ADDR];
    for (int k = 0; k < BUTTONS; k++) {
        int level = 1;
        for (int s = 0; s < SEATS; s++)
            if (held[s][k] && (ddrd & (1 << (2 + s))))
                level = 0;
        /* A low level is raised again each time: the firmware's writes to PORTC (LED 5,
         * buzzer) make simavr recompute the port's pins. */
        if (level != last[k] || level == 0) {
            last[k] = level;
            /* simavr drops a raise that does not change the IRQ's value, even when the
             * pin register no longer shows it: go through the other level first. */
            avr_raise_irq(col_irq[k], (uint32_t)!level);
            avr_raise_irq(col_irq[k], (uint32_t)level);
        }
    }
}

static uint64_t t0;

/* simavr's own sleep usleeps for every idle stretch; under load each oversleeps and the
 * board falls behind real time. We pace against the wall clock ourselves instead. */
static void no_sleep(struct avr_t *avr, avr_cycle_count_t how_long)
{
    (void)avr;
    (void)how_long;
}

static avr_cycle_count_t reset_at;

/* A pulse on the reset pin: the core restarts, EEPROM stays, MCUSR says EXTRF. */
static void pin_reset(avr_t *avr)
{
    avr_reset(avr);
    avr->data[MCUSR_ADDR] |= 1 << 1;
    for (int k = 0; k < BUTTONS; k++)
        col_level[k] = -1; /* the reset cleared the pin levels: drive them again */
}

static int command(avr_t *avr, char *line)
{
    unsigned s, k, ms;
    if (strncmp(line, "quit", 4) == 0) {
        /* How fast the board ran against the wall clock (1.0 = real time). */
        printf("speed %.2f\n", (double)avr->cycle / (F_CPU / 1e6) / (double)(wall_us() - t0));
        fflush(stdout);
        return 0;
    }
    if (sscanf(line, "reset %u", &ms) == 1) {
        reset_at = avr->cycle + (avr_cycle_count_t)ms * (F_CPU / 1000);
    } else if (strncmp(line, "reset", 5) == 0) {
        pin_reset(avr);
    } else if (sscanf(line, "tap %u %u %u", &s, &k, &ms) == 3 && s < SEATS && k < BUTTONS) {
        held[s][k] = 1;
        release_at[s][k] = avr->cycle + (avr_cycle_count_t)ms * (F_CPU / 1000);
    } else if (sscanf(line, "press %u %u", &s, &k) == 2 && s < SEATS && k < BUTTONS) {
        held[s][k] = 1;
    } else if (sscanf(line, "release %u %u", &s, &k) == 2 && s < SEATS && k < BUTTONS) {
        held[s][k] = 0;
    } else {
        printf("error unknown command: %s\n", line);
    }
    fflush(stdout);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: avrsim ELF TTY\n");
        return 2;
    }
    elf_firmware_t fw;
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(argv[1], &fw) != 0) {
        fprintf(stderr, "avrsim: cannot read %s\n", argv[1]);
        return 1;
    }
    avr_t *avr = avr_make_mcu_by_name("atmega328p");
    if (!avr)
        return 1;
    avr_init(avr);
    avr->log = 0;
    fw.frequency = F_CPU;
    avr_load_firmware(avr, &fw);
    avr->frequency = F_CPU;
    avr->sleep = no_sleep;

    tty = open(argv[2], O_RDWR | O_NOCTTY | O_NONBLOCK);
    if (tty < 0) {
        perror(argv[2]);
        return 1;
    }
    struct termios tio;
    if (tcgetattr(tty, &tio) == 0) {
        cfmakeraw(&tio);
        tcsetattr(tty, TCSANOW, &tio);
    }

    uint32_t flags = 0;
    avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
    flags &= ~(uint32_t)AVR_UART_FLAG_STDIO;
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT),
                            uart_out, NULL);
    uart_in = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    for (int k = 0; k < BUTTONS; k++)
        col_irq[k] = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('C'), 2 + k);

    printf("ready\n");
    fflush(stdout);

    uint8_t rx[512];
    size_t rx_len = 0, rx_done = 0;
    char line[256];
    size_t used = 0;
    int last_pins = -1;
    t0 = wall_us();
    avr_cycle_count_t next_check = 0, next_ms = 0, next_byte = 0;

    for (;;) {
        int state = avr_run(avr);
        if (state == cpu_Done || state == cpu_Crashed) {
            printf("stopped %d\n", state);
            return 1;
        }
        if (avr->cycle < next_check)
            continue;
        next_check = avr->cycle + 160; /* every 10 us of board time */
        update_columns(avr);
        /* One byte per 100 us: slower than 115200 baud, so the UART never overruns. (simavr's
         * XON signal would tell us too, but it is raised continuously and costs half the
         * simulation speed.) */
        if (rx_done < rx_len && avr->cycle >= next_byte) {
            avr_raise_irq(uart_in, rx[rx_done++]);
            next_byte = avr->cycle + F_CPU / 10000;
        }
        if (reset_at && avr->cycle >= reset_at) {
            reset_at = 0;
            pin_reset(avr);
        }
        for (int s = 0; s < SEATS; s++)
            for (int k = 0; k < BUTTONS; k++)
                if (release_at[s][k] && avr->cycle >= release_at[s][k]) {
                    release_at[s][k] = 0;
                    held[s][k] = 0;
                }

        uint8_t pb = avr->data[PORTB_ADDR], pc = avr->data[PORTC_ADDR];
        int pins = (pb & 0x1F) | ((pc & 1) << 5) | ((pb >> 5 & 1) << 6) | ((pc >> 1 & 1) << 7);
        if (pins != last_pins) {
            last_pins = pins;
            printf("pins");
            for (int i = 0; i < 8; i++)
                printf(" %d", pins >> i & 1);
            printf("\n");
            fflush(stdout);
        }
        if (avr->cycle < next_ms)
            continue;
        next_ms = avr->cycle + F_CPU / 1000;

        /* Once a board millisecond: keep to real time, then look at the tty and stdin. */
        uint64_t board_us = avr->cycle / (F_CPU / 1000000u);
        uint64_t real_us = wall_us() - t0;
        if (board_us > real_us + 500)
            usleep((useconds_t)(board_us - real_us));
        if (rx_done == rx_len) {
            ssize_t n = read(tty, rx, sizeof rx);
            rx_len = n > 0 ? (size_t)n : 0;
            rx_done = 0;
        }
        struct pollfd p = {STDIN_FILENO, POLLIN, 0};
        if (poll(&p, 1, 0) > 0) {
            ssize_t n = read(STDIN_FILENO, line + used, sizeof line - 1 - used);
            if (n <= 0)
                return 0;
            used += (size_t)n;
            line[used] = 0;
            char *nl;
            while ((nl = strchr(line, '\n')) != NULL) {
                *nl = 0;
                if (!command(avr, line))
                    return 0;
                used -= (size_t)(nl + 1 - line);
                memmove(line, nl + 1, used + 1);
            }
            if (used >= sizeof line - 1)
                used = 0;
        }
    }
}
