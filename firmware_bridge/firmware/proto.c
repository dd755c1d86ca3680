/* Framing for the seat-controller protocol; see proto.h. */
#include "proto.h"

uint16_t crc16_ccitt(const uint8_t *data, uint8_t len)
{
    uint16_t crc = 0xFFFF;
    for (uint8_t i = 0; i < len; i++) {
        crc ^= (uint16_t)data[i] << 8;
        for (uint8_t b = 0; b < 8; b++)
            crc = (crc & 0x8000) ? (uint16_t)(crc << 1) ^ 0x1021 : (uint16_t)(crc << 1);
    }
    return crc;
}

uint8_t cobs_encode(const uint8_t *in, uint8_t len, uint8_t *out)
{
    uint8_t code_at = 0, o = 1, code = 1;
    for (uint8_t i = 0; i < len; i++) {
        if (in[i] == 0) {
            out[code_at] = code;
            code_at = o++;
            code = 1;
        } else {
            out[o++] = in[i];
            if (++code == 0xFF) {
                out[code_at] = code;
                code_at = o++;
                code = 1;
            }
        }
    }
    out[code_at] = code;
    return o;
}

int16_t cobs_decode(const uint8_t *in, uint8_t len, uint8_t *out, uint8_t max)
{
    uint8_t i = 0, o = 0;
    while (i < len) {
        uint8_t code = in[i++];
        if (code == 0)
            return -1;
        for (uint8_t k = 1; k < code; k++) {
            if (i >= len || o >= max || in[i] == 0)
                return -1;
            out[o++] = in[i++];
        }
        if (code != 0xFF && i < len) {
            if (o >= max)
                return -1;
            out[o++] = 0;
        }
    }
    return o;
}

uint8_t frame_encode(const uint8_t *body, uint8_t len, uint8_t *out)
{
    uint8_t tmp[PROTO_MAX_BODY + 2];
    if (len > PROTO_MAX_BODY)
        return 0;
    for (uint8_t i = 0; i < len; i++)
        tmp[i] = body[i];
    put16(tmp + len, crc16_ccitt(body, len));
    uint8_t n = cobs_encode(tmp, (uint8_t)(len + 2), out);
    out[n++] = 0;
    return n;
}

void decoder_init(struct frame_decoder *d)
{
    d->len = 0;
    d->overflow = 0;
    d->bad = 0;
}

enum feed_result decoder_feed(struct frame_decoder *d, uint8_t byte, uint8_t *body, uint8_t *len)
{
    if (byte != 0) {
        if (d->len >= sizeof d->buf)
            d->overflow = 1;
        else
            d->buf[d->len++] = byte;
        return FEED_MORE;
    }
    uint8_t n = d->len, overflow = d->overflow;
    d->len = 0;
    d->overflow = 0;
    if (n == 0)
        return FEED_MORE; /* back-to-back delimiters: resync padding */
    uint8_t raw[PROTO_MAX_BODY + 2];
    int16_t m = overflow ? -1 : cobs_decode(d->buf, n, raw, sizeof raw);
    if (m < PROTO_HEADER + 2) {
        d->bad++;
        return FEED_BAD;
    }
    uint8_t blen = (uint8_t)(m - 2);
    if (crc16_ccitt(raw, blen) != get16(raw + blen)) {
        d->bad++;
        return FEED_BAD;
    }
    for (uint8_t i = 0; i < blen; i++)
        body[i] = raw[i];
    *len = blen;
    return FEED_FRAME;
}
