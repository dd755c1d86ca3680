/* Button debouncing with timestamps: a press is reported once, on release (short press) or
 * when held LONG_MS (long press), stamped with the board time it began. */
#ifndef DEBOUNCE_H
#define DEBOUNCE_H

#include <stdint.h>

#include "board.h"

#define DEBOUNCE_SAMPLES 4 /* consecutive equal samples (one per 6 ms row scan) */
#define LONG_MS 800u

struct deb_event {
    uint8_t seat, button, kind;
    uint32_t ms;
};

struct debouncer {
    uint8_t stable[MAX_SEATS][BUTTONS_PER_SEAT];
    uint8_t count[MAX_SEATS][BUTTONS_PER_SEAT];
    uint8_t reported[MAX_SEATS][BUTTONS_PER_SEAT];
    uint32_t since[MAX_SEATS][BUTTONS_PER_SEAT];
};

void debounce_init(struct debouncer *d);
/* Feed one raw sample (1 = pressed); returns 1 and fills *e when a press is complete. */
uint8_t debounce_sample(struct debouncer *d, uint8_t seat, uint8_t button, uint8_t raw,
                        uint32_t now, struct deb_event *e);

#endif
