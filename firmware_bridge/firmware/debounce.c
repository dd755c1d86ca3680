/* See debounce.h. */
#include "debounce.h"

#include "proto.h"

void debounce_init(struct debouncer *d)
{
    for (uint8_t s = 0; s < MAX_SEATS; s++) {
        for (uint8_t k = 0; k < BUTTONS_PER_SEAT; k++) {
            d->stable[s][k] = 0;
            d->count[s][k] = 0;
            d->reported[s][k] = 0;
            d->since[s][k] = 0;
        }
    }
}

uint8_t debounce_sample(struct debouncer *d, uint8_t seat, uint8_t button, uint8_t raw,
                        uint32_t now, struct deb_event *e)
{
    if (seat >= MAX_SEATS || button >= BUTTONS_PER_SEAT)
        return 0;
    if (raw == d->stable[seat][button]) {
        d->count[seat][button] = 0;
    } else if (++d->count[seat][button] >= DEBOUNCE_SAMPLES) {
        d->count[seat][button] = 0;
        d->stable[seat][button] = raw;
        if (raw) {
            d->since[seat][button] = now;
            d->reported[seat][button] = 0;
        } else if (!d->reported[seat][button]) {
            e->seat = seat;
            e->button = button;
            e->kind = PRESS_SHORT;
            e->ms = d->since[seat][button];
            return 1;
        }
        return 0;
    }
    if (d->stable[seat][button] && !d->reported[seat][button] &&
        now - d->since[seat][button] >= LONG_MS) {
        d->reported[seat][button] = 1;
        e->seat = seat;
        e->button = button;
        e->kind = PRESS_LONG;
        e->ms = d->since[seat][button];
        return 1;
    }
    return 0;
}
