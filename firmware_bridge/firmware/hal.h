/* What board.c needs from the hardware. main_avr.c implements it for the ATmega328P,
 * host_sim.c for a POSIX tty (so the protocol code is tested on the host). */
#ifndef HAL_H
#define HAL_H

#include <stdint.h>

struct outputs;

uint32_t hal_millis(void);
void hal_uart_write(const uint8_t *data, uint8_t len);
void hal_eeprom_read(uint16_t addr, void *dst, uint8_t len);
void hal_eeprom_write(uint16_t addr, const void *src, uint8_t len); /* writes only changed bytes */
uint32_t hal_entropy(void);  /* for a board id on first boot */
void hal_apply(const struct outputs *out); /* LEDs, alarm, buzzer */

#endif
