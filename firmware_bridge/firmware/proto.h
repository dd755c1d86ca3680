/* Seat-controller wire protocol v1: framing (COBS + CRC-16/CCITT-FALSE) and message layout.
 * The same bytes as firmware_bridge/protocol.py; PROTOCOL.md is the normative text.
 * No hardware here, so the host build (seatsim) runs exactly this code against Python. */
#ifndef PROTO_H
#define PROTO_H

#include <stdint.h>

#define PROTO_MAJOR 1
#define PROTO_MINOR 0
#define FW_MAJOR 1
#define FW_MINOR 0
#define FW_PATCH 0

#define PROTO_HEADER 4   /* version, type, seq (big-endian) */
#define PROTO_MAX_BODY 64
#define PROTO_MAX_ENCODED (PROTO_MAX_BODY + 2 + 2)

enum msg_type {
    MSG_HELLO = 0x01,
    MSG_HELLO_ACK = 0x02,
    MSG_HEARTBEAT = 0x03,
    MSG_EVENT = 0x04,
    MSG_SET_STATE = 0x05,
    MSG_ACK = 0x06,
    MSG_ERROR = 0x07,
};

enum err_code { ERR_BAD_FRAME = 1, ERR_UNKNOWN_TYPE = 2, ERR_BAD_PAYLOAD = 3, ERR_VERSION = 4,
                ERR_NO_SESSION = 5 };

enum press_kind { PRESS_SHORT = 1, PRESS_LONG = 2 };

#define CAP_LEDS 0x01
#define CAP_BUZZER 0x02
#define CAP_LONG_PRESS 0x04
#define CAP_JOURNAL 0x08

uint16_t crc16_ccitt(const uint8_t *data, uint8_t len);
/* COBS; encode writes at most len + 1 + len / 254 bytes and returns that count. */
uint8_t cobs_encode(const uint8_t *in, uint8_t len, uint8_t *out);
/* Returns the decoded length, or -1 for a malformed input or an output over max. */
int16_t cobs_decode(const uint8_t *in, uint8_t len, uint8_t *out, uint8_t max);

/* Builds body + CRC, COBS-encodes it into out and appends the 0x00 delimiter.
 * out needs PROTO_MAX_ENCODED + 1 bytes. Returns the frame length, 0 if the body is too long. */
uint8_t frame_encode(const uint8_t *body, uint8_t len, uint8_t *out);

/* Streaming decoder: feed bytes; a complete valid frame leaves its body in body[0..len). */
struct frame_decoder {
    uint8_t buf[PROTO_MAX_ENCODED];
    uint8_t len;
    uint8_t overflow;
    uint16_t bad; /* frames rejected (COBS, length or CRC) */
};

enum feed_result { FEED_MORE = 0, FEED_FRAME = 1, FEED_BAD = 2 };

void decoder_init(struct frame_decoder *d);
/* On FEED_FRAME, body/len hold the checked body (without CRC). */
enum feed_result decoder_feed(struct frame_decoder *d, uint8_t byte, uint8_t *body, uint8_t *len);

static inline void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static inline void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}
static inline uint16_t get16(const uint8_t *p) { return (uint16_t)((uint16_t)p[0] << 8 | p[1]); }
static inline uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

#endif
