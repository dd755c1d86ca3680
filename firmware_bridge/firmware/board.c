/* Board protocol logic; see board.h and PROTOCOL.md. */
#include "board.h"

#include "hal.h"
#include "proto.h"

/* EEPROM layout: magic, board id, boot counter, then the journal of unacknowledged presses. */
#define EE_MAGIC 0
#define EE_BOARD_ID 2
#define EE_BOOT 6
#define EE_JOURNAL 8
#define MAGIC 0x5453u /* "TS" */

struct press {
    uint8_t valid; /* 0xA5 in a journal slot that holds a press */
    uint16_t boot, seq;
    uint8_t seat, button, kind;
    uint32_t ms;
};
#define SLOT_VALID 0xA5
#define SLOT_SIZE ((uint8_t)sizeof(struct press))

static struct {
    uint8_t seats, reason, session;
    uint32_t board_id;
    uint16_t boot, seq, tx_seq, overflow;
    uint32_t last_rx, last_hb, head_sent;
    uint8_t head_sent_valid;
    struct press q[QUEUE_LEN];
    uint8_t q_head, q_len;
    struct outputs out;
    struct frame_decoder dec;
} b;

static void send(uint8_t type, uint16_t seq, const uint8_t *payload, uint8_t len)
{
    uint8_t body[PROTO_MAX_BODY];
    uint8_t frame[PROTO_MAX_ENCODED + 1];
    if (len > PROTO_MAX_BODY - PROTO_HEADER)
        return;
    body[0] = PROTO_MAJOR;
    body[1] = type;
    put16(body + 2, seq);
    for (uint8_t i = 0; i < len; i++)
        body[PROTO_HEADER + i] = payload[i];
    uint8_t n = frame_encode(body, (uint8_t)(PROTO_HEADER + len), frame);
    hal_uart_write(frame, n);
}

static uint16_t next_seq(void) { return ++b.tx_seq; }

static void send_error(uint8_t code, uint16_t ref, const char *text)
{
    uint8_t p[3 + 24];
    uint8_t n = 3;
    p[0] = code;
    put16(p + 1, ref);
    while (*text && n < sizeof p)
        p[n++] = (uint8_t)*text++;
    send(MSG_ERROR, next_seq(), p, n);
}

static void safe_state(void)
{
    uint8_t id = b.out.buzz_id;
    for (uint8_t i = 0; i < MAX_SEATS; i++)
        b.out.leds[i] = LED_OFF;
    b.out.alarm = 0;
    b.out.buzz = 0;
    b.out.buzz_id = id; /* a resent SET_STATE after reconnect must not buzz again */
    b.out.host_lost = 1;
    hal_apply(&b.out);
}

static uint16_t slot_addr(uint8_t slot) { return (uint16_t)(EE_JOURNAL + slot * SLOT_SIZE); }

static void journal_load(void)
{
    /* Slots hold presses in any order; restore them sorted by (boot, seq) into a fresh ring. */
    struct press p;
    b.q_head = 0;
    b.q_len = 0;
    for (uint8_t s = 0; s < QUEUE_LEN; s++) {
        hal_eeprom_read(slot_addr(s), &p, SLOT_SIZE);
        if (p.valid != SLOT_VALID || p.seat >= MAX_SEATS || p.button >= BUTTONS_PER_SEAT ||
            (p.kind != PRESS_SHORT && p.kind != PRESS_LONG))
            continue; /* never replay a slot that worn or half-written EEPROM garbled */
        uint8_t i = b.q_len++;
        while (i > 0 && (b.q[i - 1].boot > p.boot ||
                         (b.q[i - 1].boot == p.boot && b.q[i - 1].seq > p.seq))) {
            b.q[i] = b.q[i - 1];
            i--;
        }
        b.q[i] = p;
    }
    for (uint8_t s = 0; s < QUEUE_LEN; s++) {
        if (s < b.q_len) {
            hal_eeprom_write(slot_addr(s), &b.q[s], SLOT_SIZE);
        } else {
            uint8_t zero = 0;
            hal_eeprom_write(slot_addr(s), &zero, 1);
        }
    }
}

void board_init(uint8_t seats, uint8_t reset_reason)
{
    uint16_t magic = 0;
    b.seats = seats > MAX_SEATS ? MAX_SEATS : seats;
    b.reason = reset_reason;
    b.session = 0;
    b.seq = 0;
    b.tx_seq = 0;
    b.overflow = 0;
    b.head_sent_valid = 0;
    decoder_init(&b.dec);
    hal_eeprom_read(EE_MAGIC, &magic, 2);
    if (magic != MAGIC) {
        uint8_t zero = 0;
        b.board_id = hal_entropy();
        b.boot = 0;
        for (uint8_t s = 0; s < QUEUE_LEN; s++)
            hal_eeprom_write(slot_addr(s), &zero, 1);
        hal_eeprom_write(EE_BOARD_ID, &b.board_id, 4);
        magic = MAGIC;
        hal_eeprom_write(EE_MAGIC, &magic, 2);
    } else {
        hal_eeprom_read(EE_BOARD_ID, &b.board_id, 4);
        hal_eeprom_read(EE_BOOT, &b.boot, 2);
    }
    if (++b.boot == 0)
        b.boot = 1;
    hal_eeprom_write(EE_BOOT, &b.boot, 2);
    journal_load();
    b.out.buzz_id = 0;
    safe_state();
}

uint8_t board_press(uint8_t seat, uint8_t button, uint8_t kind, uint32_t ms)
{
    if (seat >= b.seats || button >= BUTTONS_PER_SEAT)
        return 0;
    b.seq++;
    if (b.q_len >= QUEUE_LEN) {
        b.overflow++;
        return 0;
    }
    uint8_t slot = (uint8_t)((b.q_head + b.q_len) % QUEUE_LEN);
    struct press *p = &b.q[slot];
    p->valid = SLOT_VALID;
    p->boot = b.boot;
    p->seq = b.seq;
    p->seat = seat;
    p->button = button;
    p->kind = kind;
    p->ms = ms;
    b.q_len++;
    /* The press first, the valid mark last: a power cut mid-write leaves an invalid slot. */
    hal_eeprom_write((uint16_t)(slot_addr(slot) + 1), (const uint8_t *)p + 1,
                     (uint8_t)(SLOT_SIZE - 1));
    hal_eeprom_write(slot_addr(slot), &p->valid, 1);
    return 1;
}

static void send_head(uint32_t now)
{
    const struct press *p = &b.q[b.q_head];
    uint8_t pl[9];
    put16(pl, p->boot);
    pl[2] = p->seat;
    pl[3] = p->button;
    pl[4] = p->kind;
    put32(pl + 5, p->ms);
    send(MSG_EVENT, p->seq, pl, sizeof pl);
    b.head_sent = now;
    b.head_sent_valid = 1;
}

static void hello_ack(const uint8_t *pl)
{
    uint8_t a[20];
    for (uint8_t i = 0; i < 4; i++)
        a[i] = pl[i]; /* the host's nonce */
    a[4] = PROTO_MAJOR;
    a[5] = PROTO_MINOR;
    a[6] = FW_MAJOR;
    a[7] = FW_MINOR;
    a[8] = FW_PATCH;
    put32(a + 9, b.board_id);
    put16(a + 13, b.boot);
    a[15] = b.seats;
    a[16] = BUTTONS_PER_SEAT;
    a[17] = CAP_LEDS | CAP_BUZZER | CAP_LONG_PRESS | CAP_JOURNAL;
    a[18] = b.reason;
    send(MSG_HELLO_ACK, next_seq(), a, 19);
}

static void handle(const uint8_t *body, uint8_t len, uint32_t now)
{
    uint8_t type = body[1];
    uint16_t seq = get16(body + 2);
    const uint8_t *pl = body + PROTO_HEADER;
    uint8_t n = (uint8_t)(len - PROTO_HEADER);

    b.last_rx = now;
    if (body[0] != PROTO_MAJOR && type != MSG_HELLO) {
        send_error(ERR_VERSION, seq, "protocol major mismatch");
        return;
    }
    if (type == MSG_HELLO) {
        if (n != 6) {
            send_error(ERR_BAD_PAYLOAD, seq, "HELLO length");
            return;
        }
        b.session = 1;
        b.out.host_lost = 0;
        b.last_hb = now;
        b.head_sent_valid = 0;
        hal_apply(&b.out);
        hello_ack(pl);
        return;
    }
    if (!b.session) {
        send_error(ERR_NO_SESSION, seq, "send HELLO first");
        return;
    }
    switch (type) {
    case MSG_SET_STATE:
        if (n < 1 || pl[0] != b.seats || n != (uint8_t)(pl[0] + 4)) {
            send_error(ERR_BAD_PAYLOAD, seq, "SET_STATE seats");
            return;
        }
        for (uint8_t i = 0; i < b.seats; i++) {
            if (pl[1 + i] > LED_FAST_BLINK) {
                send_error(ERR_BAD_PAYLOAD, seq, "LED mode");
                return;
            }
        }
        for (uint8_t i = 0; i < b.seats; i++)
            b.out.leds[i] = pl[1 + i];
        b.out.alarm = pl[1 + b.seats];
        b.out.buzz = pl[2 + b.seats];
        b.out.buzz_id = pl[3 + b.seats];
        hal_apply(&b.out);
        {
            uint8_t a[3] = {MSG_SET_STATE, body[2], body[3]};
            send(MSG_ACK, next_seq(), a, 3);
        }
        break;
    case MSG_ACK:
        if (n == 3 && pl[0] == MSG_EVENT && b.q_len && get16(pl + 1) == b.q[b.q_head].seq) {
            uint8_t zero = 0;
            hal_eeprom_write(slot_addr(b.q_head), &zero, 1);
            b.q_head = (uint8_t)((b.q_head + 1) % QUEUE_LEN);
            b.q_len--;
            b.head_sent_valid = 0;
        }
        break;
    case MSG_HEARTBEAT:
    case MSG_ERROR:
        break;
    default:
        send_error(ERR_UNKNOWN_TYPE, seq, "unknown type");
    }
}

void board_rx(uint8_t byte)
{
    uint8_t body[PROTO_MAX_BODY];
    uint8_t len = 0;
    if (decoder_feed(&b.dec, byte, body, &len) == FEED_FRAME)
        handle(body, len, hal_millis());
}

void board_poll(void)
{
    uint32_t now = hal_millis();
    if (!b.session)
        return;
    if (now - b.last_rx > LOST_MS) {
        b.session = 0;
        safe_state();
        return;
    }
    if (now - b.last_hb >= HEARTBEAT_MS) {
        uint8_t pl[9];
        b.last_hb = now;
        put32(pl, now);
        pl[4] = b.q_len;
        put16(pl + 5, b.overflow);
        put16(pl + 7, b.dec.bad);
        send(MSG_HEARTBEAT, next_seq(), pl, sizeof pl);
    }
    if (b.q_len && (!b.head_sent_valid || now - b.head_sent >= RESEND_MS))
        send_head(now);
}

const struct outputs *board_outputs(void) { return &b.out; }
uint8_t board_session(void) { return b.session; }
uint16_t board_boot(void) { return b.boot; }
uint8_t board_pending(void) { return b.q_len; }
