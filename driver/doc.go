// Package driver is the only code in Sabot that touches hardware. It holds no code of its own;
// each device has a package here with a small API and a …test package beside it with a stateful
// simulator and fault injection: the serial devices' simulators speak the same bytes over a real
// pseudo-terminal, the camera shoe's drive periph's gpiotest pins.
//
//	driver/shuffler       the shuffler: binary frames, CRC-16, ACK/NAK, retransmission
//	driver/readershoe     the card-reading shoe: Bee-Tek ASCII lines over RS-232
//	driver/camerashoe     the camera shoe's sensors, buttons and LED over GPIO (periph)
//
// Drivers import the card type (shoe/card) and nothing else from the module: never shoe, vision,
// games or tablebus (STYLE.md: data flows driver → shoe → tablebus → games).
package driver
