/* The board's protocol logic: session, heartbeats, the press queue with its EEPROM journal,
 * the host-lost safe state and SET_STATE. Hardware-free (see hal.h). */
#ifndef BOARD_H
#define BOARD_H

#include <stdint.h>

#define MAX_SEATS 6
#define BUTTONS_PER_SEAT 3
#define HEARTBEAT_MS 500u
#define LOST_MS 1500u   /* three missed heartbeats */
#define RESEND_MS 200u
#define QUEUE_LEN 16u

enum led_mode { LED_OFF = 0, LED_ON = 1, LED_BLINK = 2, LED_FAST_BLINK = 3 };
enum reset_reason { RR_UNKNOWN = 0, RR_POWER_ON = 1, RR_EXTERNAL = 2, RR_BROWN_OUT = 3,
                    RR_WATCHDOG = 4 };

struct outputs {
    uint8_t leds[MAX_SEATS];
    uint8_t alarm;
    uint8_t buzz;      /* pattern to play when buzz_id changes */
    uint8_t buzz_id;
    uint8_t host_lost; /* safe state: seat LEDs off, alarm LED blinks slowly */
};

void board_init(uint8_t seats, uint8_t reset_reason);
void board_rx(uint8_t byte);
void board_poll(void);
/* A debounced press; queued and journalled until the host ACKs it. Returns 0 if the queue
 * is full (the press is counted as overflow). */
uint8_t board_press(uint8_t seat, uint8_t button, uint8_t kind, uint32_t ms);
const struct outputs *board_outputs(void);
uint8_t board_session(void);
uint16_t board_boot(void);
uint8_t board_pending(void);

#endif
