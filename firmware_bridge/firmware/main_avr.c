/* ATmega328P (Arduino Nano/Uno, 16 MHz) seat controller: UART, button matrix, LEDs, buzzer.
 *
 * Pin-out (Arduino names):
 *   seat rows   D2..D7  (PD2..PD7)  driven low one at a time, one row per seat
 *   columns     A2..A4  (PC2..PC4)  inputs with pull-ups; button 0 pass, 1 claim, 2 referee
 *               (a diode per switch, cathode to the row, so several presses never ghost)
 *   seat LEDs   D8..D12 (PB0..PB4) for seats 0..4, A0 (PC0) for seat 5
 *   alarm LED   D13 (PB5, the on-board LED); blinks slowly while the host is lost
 *   buzzer      A1 (PC1), an active buzzer
 * Timer0 ticks every 1 ms: it scans one row, debounces, and drives blinking and the buzzer.
 */
#include <avr/eeprom.h>
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <avr/wdt.h>
#include <util/atomic.h>

#include "board.h"
#include "debounce.h"
#include "hal.h"

#define BAUD_UBRR ((F_CPU / 8 + 57600) / 115200 - 1) /* 115200 baud with U2X: 16 at 16 MHz */
#define RX_SIZE 128 /* an EEPROM journal write blocks the loop for up to ~40 ms */
#define SEATS 6

uint8_t mcusr_at_boot __attribute__((section(".noinit")));

/* Read and clear MCUSR before anything else, so a watchdog reset cannot loop. */
void early_init(void) __attribute__((naked, used, section(".init3")));
void early_init(void)
{
    mcusr_at_boot = MCUSR;
    MCUSR = 0;
    wdt_disable();
}

static volatile uint32_t ms_now;
static volatile uint8_t rx_buf[RX_SIZE];
static volatile uint8_t rx_head, rx_tail;
static struct debouncer deb;
static volatile struct outputs shown;
static volatile uint8_t buzz_pattern, buzz_played_id;
static volatile uint16_t buzz_t;

/* Press ring filled by the 1 ms tick, drained by the main loop. */
#define EV_SIZE 8
static volatile struct deb_event ev_ring[EV_SIZE];
static volatile uint8_t ev_head, ev_tail;

ISR(USART_RX_vect)
{
    uint8_t c = UDR0;
    uint8_t next = (uint8_t)((rx_head + 1) % RX_SIZE);
    if (next != rx_tail) {
        rx_buf[rx_head] = c;
        rx_head = next;
    }
}

/* Blink phases, kept as counters: a 32-bit division per LED per tick would cost the ISR
 * thousands of cycles. */
static uint8_t slow_phase, fast_phase, lost_phase;
static uint16_t slow_ms, fast_ms, lost_ms;

static uint8_t led_level(uint8_t mode)
{
    switch (mode) {
    case LED_ON: return 1;
    case LED_BLINK: return slow_phase;
    case LED_FAST_BLINK: return fast_phase;
    default: return 0;
    }
}

/* Buzzer patterns: 1 short beep, 2 three beeps (violation), 3 one long beep. */
static uint8_t buzz_level(uint8_t pattern, uint16_t t)
{
    switch (pattern) {
    case 1: return t < 100;
    case 2: return t < 600 && (t % 200) < 100;
    case 3: return t < 600;
    default: return 0;
    }
}

static void set_seat_led(uint8_t seat, uint8_t on)
{
    if (seat < 5) {
        if (on) PORTB |= (uint8_t)(1 << seat); else PORTB &= (uint8_t)~(1 << seat);
    } else {
        if (on) PORTC |= 1 << PC0; else PORTC &= (uint8_t)~(1 << PC0);
    }
}

ISR(TIMER0_COMPA_vect)
{
    static uint8_t row;
    uint32_t t = ++ms_now;

    /* Sample the row driven last tick, then drive the next one. */
    uint8_t cols = (uint8_t)(~PINC >> PC2) & 0x07;
    struct deb_event e;
    for (uint8_t k = 0; k < BUTTONS_PER_SEAT; k++) {
        if (debounce_sample(&deb, row, k, (cols >> k) & 1, t, &e)) {
            uint8_t next = (uint8_t)((ev_head + 1) % EV_SIZE);
            if (next != ev_tail) {
                ev_ring[ev_head] = e;
                ev_head = next;
            }
        }
    }
    DDRD &= (uint8_t)~(1 << (PD2 + row));
    row = (uint8_t)((row + 1) % SEATS);
    DDRD |= (uint8_t)(1 << (PD2 + row));

    if (++slow_ms >= 500) { slow_ms = 0; slow_phase ^= 1; }
    if (++fast_ms >= 125) { fast_ms = 0; fast_phase ^= 1; }
    if (++lost_ms >= 1000) { lost_ms = 0; lost_phase ^= 1; }
    for (uint8_t s = 0; s < SEATS; s++)
        set_seat_led(s, led_level(shown.leds[s]));
    uint8_t alarm = shown.host_lost ? lost_phase : (shown.alarm ? fast_phase : 0);
    if (alarm) PORTB |= 1 << PB5; else PORTB &= (uint8_t)~(1 << PB5);
    if (buzz_t < 0xFFFF)
        buzz_t++;
    if (buzz_level(buzz_pattern, buzz_t)) PORTC |= 1 << PC1; else PORTC &= (uint8_t)~(1 << PC1);
}

uint32_t hal_millis(void)
{
    uint32_t t;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { t = ms_now; }
    return t;
}

void hal_uart_write(const uint8_t *data, uint8_t len)
{
    for (uint8_t i = 0; i < len; i++) {
        while (!(UCSR0A & (1 << UDRE0)))
            ;
        UDR0 = data[i];
    }
}

void hal_eeprom_read(uint16_t addr, void *dst, uint8_t len)
{
    eeprom_read_block(dst, (const void *)addr, len);
}

void hal_eeprom_write(uint16_t addr, const void *src, uint8_t len)
{
    eeprom_update_block(src, (void *)addr, len);
}

uint32_t hal_entropy(void)
{
    /* The low bits of a floating analog input (A7) and the timer: enough for a board id. */
    uint32_t v = 0;
    ADMUX = (1 << REFS0) | 7;
    ADCSRA = (1 << ADEN) | 7;
    for (uint8_t i = 0; i < 32; i++) {
        ADCSRA |= 1 << ADSC;
        while (ADCSRA & (1 << ADSC))
            ;
        v = (v << 1 | (v >> 31)) ^ ADCL ^ TCNT0;
        (void)ADCH;
    }
    ADCSRA = 0;
    return v;
}

void hal_apply(const struct outputs *out)
{
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        for (uint8_t s = 0; s < MAX_SEATS; s++)
            shown.leds[s] = out->leds[s];
        shown.alarm = out->alarm;
        shown.host_lost = out->host_lost;
        if (out->buzz && out->buzz_id != buzz_played_id) {
            buzz_pattern = out->buzz;
            buzz_t = 0;
        }
        buzz_played_id = out->buzz_id;
    }
}

static uint8_t reset_reason(uint8_t mcusr)
{
    if (mcusr & (1 << WDRF)) return RR_WATCHDOG;
    if (mcusr & (1 << BORF)) return RR_BROWN_OUT;
    if (mcusr & (1 << EXTRF)) return RR_EXTERNAL;
    if (mcusr & (1 << PORF)) return RR_POWER_ON;
    return RR_UNKNOWN;
}

int main(void)
{
    DDRB = 0x3F;                            /* seat LEDs 0..4 and the alarm LED */
    DDRC = (1 << PC0) | (1 << PC1);         /* seat LED 5, buzzer */
    PORTC = (1 << PC2) | (1 << PC3) | (1 << PC4); /* column pull-ups */
    DDRD = 0;
    PORTD = 0;                              /* rows: low when driven, high-Z otherwise */

    UBRR0 = BAUD_UBRR;
    UCSR0A = 1 << U2X0;
    UCSR0B = (1 << RXEN0) | (1 << TXEN0) | (1 << RXCIE0);
    UCSR0C = (1 << UCSZ01) | (1 << UCSZ00);

    TCCR0A = 1 << WGM01;                    /* CTC, F_CPU / 64 / (OCR0A + 1) = 1 kHz */
    TCCR0B = (1 << CS01) | (1 << CS00);
    OCR0A = F_CPU / 64 / 1000 - 1;
    TIMSK0 = 1 << OCIE0A;

    set_sleep_mode(SLEEP_MODE_IDLE);
    debounce_init(&deb);
    board_init(SEATS, reset_reason(mcusr_at_boot));
    wdt_enable(WDTO_1S);
    sei();

    for (;;) {
        wdt_reset();
        while (rx_tail != rx_head) {
            uint8_t c = rx_buf[rx_tail];
            rx_tail = (uint8_t)((rx_tail + 1) % RX_SIZE);
            board_rx(c);
        }
        while (ev_tail != ev_head) {
            struct deb_event e;
            ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
            {
                e.seat = ev_ring[ev_tail].seat;
                e.button = ev_ring[ev_tail].button;
                e.kind = ev_ring[ev_tail].kind;
                e.ms = ev_ring[ev_tail].ms;
                ev_tail = (uint8_t)((ev_tail + 1) % EV_SIZE);
            }
            board_press(e.seat, e.button, e.kind, e.ms);
        }
        board_poll();
        /* Idle until the next interrupt (the 1 ms tick at the latest). sei then sleep_cpu
         * run back to back, so a byte arriving after the check still wakes us. */
        cli();
        if (rx_tail == rx_head && ev_tail == ev_head) {
            sleep_enable();
            sei();
            sleep_cpu();
            sleep_disable();
        }
        sei();
    }
}
