/*
 * Buzzer button box firmware for the ATmega328P (Arduino Uno / Nano), 16 MHz.
 *
 * What it does, and why it is built this way:
 *
 *  - 8 buttons (active low, internal pull-ups) on D2..D9, a lamp output per
 *    button on D10..D13 and A0..A3 (pin table in docs/serial-box.md).
 *  - Timer1 runs free at F_CPU/8 = 2 MHz: one tick is 0.5 us.  Its 16 bits
 *    are extended by a 32-bit overflow count to 48 bits (wraps after 4.4
 *    years), so timestamps never wrap during a game day.
 *  - The pin-change interrupts take a snapshot only (Timer1 + both input
 *    ports) and queue it.  Everything else (debounce, framing, UART) runs in
 *    the main loop with polling, so no other interrupt can delay a snapshot:
 *    there is no UART or timer interrupt at all.  The Timer1 overflow is
 *    counted by polling TOV1 in the main loop; the snapshot corrects for an
 *    overflow that has happened but was not yet counted.
 *  - Debounce is the same for every button: the first edge is reported with
 *    its own timestamp, then the button is ignored for DEBOUNCE_US; at the
 *    end of that window a changed level is reported with the time of the
 *    last edge seen inside the window.
 *  - Debounced events get consecutive sequence numbers and stay in a ring
 *    after sending, so the host can ask for them again (REPLAY) after lost
 *    bytes or a reconnect.  Queue overflows are counted and reported (REPORT
 *    frames), never silent.
 *  - Every frame carries a 16-bit sequence number: an EVENT its own number,
 *    any other frame the number of the next event to be sent (so every
 *    event numbered below it has already gone out: the host can see that it
 *    missed trailing events).
 *  - Frames: 0x00, COBS(type, seq16, payload, crc16-ccitt), 0x00 at 1 Mbaud
 *    (U2X, UBRR0 = 1: exact at 16 MHz).  See docs/serial-protocol.md.
 */

#include <avr/eeprom.h>
#include <avr/interrupt.h>
#include <avr/io.h>
#include <stdint.h>
#include <string.h>

#ifndef F_CPU
#define F_CPU 16000000UL
#endif
#ifndef DEBOUNCE_US
#define DEBOUNCE_US 5000UL
#endif
#ifndef BAUD_UBRR
#define BAUD_UBRR 1 /* 16 MHz / (8 * (1 + 1)) = 1 Mbaud with U2X */
#endif

#define FW_MAJOR 1
#define FW_MINOR 0
#define PROTOCOL_VERSION 1
#define N_INPUTS 8
#define TICK_HZ (F_CPU / 8UL)
#define DEBOUNCE_TICKS ((uint32_t)(DEBOUNCE_US * (TICK_HZ / 1000000UL)))

/* message types */
#define T_HELLO 0x01
#define T_EVENT 0x02
#define T_TIME 0x03
#define T_REPORT 0x04
#define T_HELLO_REQ 0x81
#define T_TIME_REQ 0x82
#define T_LAMPS 0x83
#define T_REPLAY 0x84

#define R_STATUS 0
#define R_OVERFLOW 1
#define R_RX_ERROR 2
#define R_REPLAY_GONE 3

/* ------------------------------------------------------------ pin layout */
/* inputs 0..5 = PD2..PD7 (D2..D7), inputs 6..7 = PB0..PB1 (D8, D9) */
#define IN_D_MASK 0xFC
#define IN_B_MASK 0x03
/* lamps 0..3 = PB2..PB5 (D10..D13), lamps 4..7 = PC0..PC3 (A0..A3) */
#define LAMP_B_MASK 0x3C
#define LAMP_C_MASK 0x0F

static inline uint8_t inputs_from_ports(uint8_t pd, uint8_t pb)
{
    /* bit i set = input i pressed (pin low) */
    uint8_t raw = (uint8_t)((pd >> 2) | (pb << 6));
    return (uint8_t)~raw;
}

/* ------------------------------------------------------------- timebase */
static volatile uint32_t ovf_count; /* Timer1 overflows counted so far */

typedef struct {
    uint16_t tcnt;
    uint32_t ovf;
    uint8_t pd, pb;
} snapshot_t;

#define SNAPQ 32 /* power of two */
static snapshot_t snapq[SNAPQ];
static volatile uint8_t snap_head, snap_tail;
static volatile uint32_t snapshots_dropped;
static volatile uint8_t snap_overflow; /* set by the ISR when it drops one */

/* Both pin-change vectors run this: read the timer first, then the ports. */
ISR(PCINT2_vect)
{
    uint16_t t = TCNT1;
    uint8_t pd = PIND;
    uint8_t pb = PINB;
    uint32_t o = ovf_count;
    if ((TIFR1 & _BV(TOV1)) && t < 0x8000)
        o++;
    uint8_t h = snap_head;
    uint8_t n = (uint8_t)((h + 1) & (SNAPQ - 1));
    if (n == snap_tail) {
        snapshots_dropped++;
        snap_overflow = 1;
        return;
    }
    snapq[h].tcnt = t;
    snapq[h].ovf = o;
    snapq[h].pd = pd;
    snapq[h].pb = pb;
    snap_head = n;
}
ISR(PCINT0_vect, ISR_ALIASOF(PCINT2_vect));

static inline uint64_t ticks_of(uint32_t ovf, uint16_t tcnt)
{
    return ((uint64_t)ovf << 16) | tcnt;
}

/* Count a pending overflow; call often (at least every 32 ms). */
static void timebase_poll(void)
{
    if (TIFR1 & _BV(TOV1)) {
        cli();
        TIFR1 = _BV(TOV1);
        ovf_count++;
        sei();
    }
}

/* The main loop's clock read.  Interrupts are off only for the 16-bit
   TCNT1 read (it shares the TEMP register with the ISR's read) and TOV1:
   a few cycles, so a snapshot is never held up by more than that.
   ovf_count is only written by the main loop, so it needs no lock here. */
static inline uint32_t ticks_now_lo(uint16_t *tc_out, uint32_t *ovf_out)
{
    cli();
    uint16_t t = TCNT1;
    uint8_t tov = TIFR1 & _BV(TOV1);
    sei();
    uint32_t o = ovf_count;
    if (tov && t < 0x8000)
        o++;
    *tc_out = t;
    *ovf_out = o;
    return ((uint32_t)o << 16) | t;
}

static uint64_t ticks_now(void)
{
    uint16_t t;
    uint32_t o;
    ticks_now_lo(&t, &o);
    return ticks_of(o, t);
}

/* ---------------------------------------------------------------- events */
typedef struct {
    uint64_t at;
    uint8_t input;
    uint8_t pressed;
} event_t;

#define EVQ 64 /* power of two; also the replay history */
static event_t evq[EVQ];
static uint16_t ev_next_seq; /* seq of the next event produced */
static uint16_t ev_send_seq; /* seq of the next event to send */
static uint8_t ev_stored;    /* how many events the ring holds (<= EVQ) */
static uint32_t events_dropped;

static uint8_t report_pending;
static uint8_t report_reason;

static void event_push(uint8_t input, uint8_t pressed, uint64_t at)
{
    if ((uint16_t)(ev_next_seq - ev_send_seq) >= EVQ) {
        events_dropped++; /* ring full of unsent events: reported, not silent */
        report_pending = 1;
        report_reason = R_OVERFLOW;
        return;
    }
    event_t *e = &evq[ev_next_seq & (EVQ - 1)];
    e->at = at;
    e->input = input;
    e->pressed = pressed;
    ev_next_seq++;
    if (ev_stored < EVQ)
        ev_stored++;
}

static inline uint16_t ev_oldest_seq(void)
{
    return (uint16_t)(ev_next_seq - ev_stored);
}

/* -------------------------------------------------------------- debounce */
static uint8_t level;     /* raw level as of the last snapshot, bit = pressed */
static uint8_t reported;  /* level last reported */
static uint8_t in_window; /* bit set = inside the debounce window */
static uint32_t until_lo[N_INPUTS];  /* window end, low 32 bits of ticks */
static uint64_t last_edge[N_INPUTS]; /* time of the last raw edge */

/* (int32_t)(a - b) >= 0 on the 32-bit circle; windows are only milliseconds */
static inline uint8_t reached(uint32_t now_lo, uint32_t end_lo)
{
    return (int32_t)(now_lo - end_lo) >= 0;
}

static uint32_t next_end; /* earliest window end while in_window != 0 */

static void open_window(uint8_t i, uint32_t end)
{
    if (!in_window || !reached(end, next_end))
        next_end = end; /* the new window ends first */
    until_lo[i] = end;
    in_window |= (uint8_t)(1u << i);
}

static __attribute__((noinline)) void settle_windows_slow(uint32_t now_lo);

static inline void settle_windows(uint32_t now_lo)
{
    /* cheap exit: the main loop calls this all the time */
    if (in_window && reached(now_lo, next_end))
        settle_windows_slow(now_lo);
}

static __attribute__((noinline)) void settle_windows_slow(uint32_t now_lo)
{
    uint8_t w = in_window;
    for (uint8_t i = 0; i < N_INPUTS; i++) {
        uint8_t bit = (uint8_t)(1u << i);
        if (!(w & bit) || !reached(now_lo, until_lo[i]))
            continue;
        in_window &= (uint8_t)~bit;
        if ((level ^ reported) & bit) {
            /* the level changed inside the window: report it with the time
               of the last edge, and open a new window from there */
            reported ^= bit;
            event_push(i, (reported & bit) ? 1 : 0, last_edge[i]);
            uint32_t end = (uint32_t)last_edge[i] + DEBOUNCE_TICKS;
            if (!reached(now_lo, end)) {
                until_lo[i] = end;
                in_window |= bit;
            }
        }
    }
    /* the earliest of the windows still open */
    uint8_t first = 1;
    for (uint8_t i = 0; i < N_INPUTS; i++) {
        if ((in_window & (1u << i)) && (first || !reached(until_lo[i], next_end))) {
            next_end = until_lo[i];
            first = 0;
        }
    }
}

static __attribute__((noinline)) void process_snapshot(const snapshot_t *s)
{
    uint64_t at = ticks_of(s->ovf, s->tcnt);
    uint32_t at_lo = (uint32_t)at;
    settle_windows(at_lo);
    uint8_t now = inputs_from_ports(s->pd, s->pb);
    uint8_t changed = now ^ level;
    level = now;
    if (!changed)
        return;
    for (uint8_t i = 0; i < N_INPUTS; i++) {
        uint8_t bit = (uint8_t)(1u << i);
        if (!(changed & bit))
            continue;
        last_edge[i] = at;
        if (in_window & bit)
            continue; /* settled when the window ends */
        if ((level ^ reported) & bit) {
            reported ^= bit;
            event_push(i, (reported & bit) ? 1 : 0, at);
            open_window(i, at_lo + DEBOUNCE_TICKS);
        }
    }
}

/* Pop one snapshot, or settle the windows that ended if none is pending. */
static inline void input_poll(void)
{
    /* single producer (the ISR writes at head), single consumer (here, at
       tail): the slot at tail is not touched by the ISR until tail moves, so
       no interrupt lock is needed for the copy (a lock would delay the
       next snapshot by the ~2 us the copy takes) */
    uint8_t t = snap_tail;
    if (t != snap_head) {
        __asm__ volatile("" ::: "memory"); /* read the slot after head */
        snapshot_t s = snapq[t];
        __asm__ volatile("" ::: "memory"); /* ... and before freeing it */
        snap_tail = (uint8_t)((t + 1) & (SNAPQ - 1));
        process_snapshot(&s);
        return;
    }
    /* queue empty: read the clock, then check that no edge came before
       that moment (it would be queued or have its flag pending); only then
       may the windows that ended by 'now' be settled */
    uint16_t tc;
    uint32_t o;
    uint32_t now_lo = ticks_now_lo(&tc, &o);
    uint8_t pending = (PCIFR & (_BV(PCIF0) | _BV(PCIF2))) || snap_head != t;
    if (!pending)
        settle_windows(now_lo);
}

/* ------------------------------------------------------------------ lamps */
static uint8_t lamp_on, lamp_blink, lamp_out = 0xFF;

static void lamps_poll(void)
{
    uint8_t phase = (ovf_count & 0x10) ? 0xFF : 0x00; /* ~0.5 s on, 0.5 s off */
    uint8_t out = (uint8_t)((lamp_on & ~lamp_blink) | (lamp_blink & phase));
    if (out == lamp_out)
        return;
    lamp_out = out;
    PORTB = (uint8_t)((PORTB & ~LAMP_B_MASK) | ((out << 2) & LAMP_B_MASK));
    PORTC = (uint8_t)((PORTC & ~LAMP_C_MASK) | ((out >> 4) & LAMP_C_MASK));
}

/* -------------------------------------------------------------- framing */
static uint16_t crc16_update(uint16_t crc, uint8_t b)
{
    crc ^= (uint16_t)b << 8;
    for (uint8_t k = 0; k < 8; k++)
        crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
    return crc;
}

#define MAX_FRAME 64
static uint8_t txbuf[MAX_FRAME + 4];
static uint8_t tx_len, tx_pos;

/* body[0..len) -> 0x00 COBS(body + crc) 0x00 into txbuf */
static void frame_send(uint8_t *body, uint8_t len)
{
    uint16_t crc = 0xFFFF;
    for (uint8_t i = 0; i < len; i++)
        crc = crc16_update(crc, body[i]);
    body[len++] = (uint8_t)crc;
    body[len++] = (uint8_t)(crc >> 8);

    uint8_t o = 0;
    txbuf[o++] = 0;
    uint8_t code_at = o++;
    uint8_t code = 1;
    for (uint8_t i = 0; i < len; i++) {
        if (body[i] == 0) {
            txbuf[code_at] = code;
            code_at = o++;
            code = 1;
        } else {
            txbuf[o++] = body[i];
            code++;
        }
    }
    txbuf[code_at] = code;
    txbuf[o++] = 0;
    tx_len = o;
    tx_pos = 0;
}

static uint8_t *put_u16(uint8_t *p, uint16_t v)
{
    *p++ = (uint8_t)v;
    *p++ = (uint8_t)(v >> 8);
    return p;
}

static uint8_t *put_u32(uint8_t *p, uint32_t v)
{
    for (uint8_t i = 0; i < 4; i++) {
        *p++ = (uint8_t)v;
        v >>= 8;
    }
    return p;
}

static uint8_t *put_u48(uint8_t *p, uint64_t v)
{
    for (uint8_t i = 0; i < 6; i++) {
        *p++ = (uint8_t)v;
        v >>= 8;
    }
    return p;
}

/* --------------------------------------------------------------- state */
static uint32_t boot_id;
static uint8_t hello_pending = 1;
static uint8_t time_pending;
static uint32_t time_token;
static uint32_t rx_errors;

static __attribute__((noinline)) void build_next_frame(void)
{
    if (snap_overflow) {
        snap_overflow = 0;
        report_pending = 1;
        report_reason = R_OVERFLOW;
    }
    uint8_t body[MAX_FRAME];
    uint8_t *p = body;
    if (hello_pending) {
        hello_pending = 0;
        *p++ = T_HELLO;
        p = put_u16(p, ev_send_seq);
        *p++ = PROTOCOL_VERSION;
        *p++ = FW_MAJOR;
        *p++ = FW_MINOR;
        *p++ = N_INPUTS;
        p = put_u32(p, boot_id);
        p = put_u32(p, TICK_HZ);
        p = put_u32(p, DEBOUNCE_US);
        p = put_u48(p, ticks_now());
    } else if (time_pending) {
        time_pending = 0;
        *p++ = T_TIME;
        p = put_u16(p, ev_send_seq);
        p = put_u32(p, time_token);
        p = put_u32(p, boot_id);
        p = put_u48(p, ticks_now());
    } else if (report_pending) {
        report_pending = 0;
        cli();
        uint32_t sd = snapshots_dropped;
        sei();
        *p++ = T_REPORT;
        p = put_u16(p, ev_send_seq);
        *p++ = report_reason;
        p = put_u32(p, sd);
        p = put_u32(p, events_dropped);
        p = put_u32(p, rx_errors);
        p = put_u16(p, ev_oldest_seq());
        report_reason = R_STATUS;
    } else if (ev_send_seq != ev_next_seq) {
        const event_t *e = &evq[ev_send_seq & (EVQ - 1)];
        *p++ = T_EVENT;
        p = put_u16(p, ev_send_seq);
        *p++ = e->input;
        *p++ = e->pressed;
        p = put_u48(p, e->at);
        ev_send_seq++;
    } else {
        return;
    }
    frame_send(body, (uint8_t)(p - body));
}

/* The main loop's fast path: feed the UART, or build a frame when there is
   something to send.  Kept small: a byte lasts only 160 cycles. */
static inline void tx_poll(void)
{
    if (tx_pos < tx_len) {
        if (UCSR0A & _BV(UDRE0))
            UDR0 = txbuf[tx_pos++];
        return;
    }
    if (hello_pending | time_pending | report_pending | snap_overflow || ev_send_seq != ev_next_seq)
        build_next_frame();
}

/* ---------------------------------------------------------------- receive */
static uint8_t rxbuf[MAX_FRAME + 4];
static uint8_t rx_len;
static uint8_t rx_overlong;

static void rx_error(void)
{
    rx_errors++;
    report_pending = 1;
    if (report_reason == R_STATUS)
        report_reason = R_RX_ERROR;
}

static void handle_frame(const uint8_t *f, uint8_t len)
{
    /* f = type, seq16, payload; crc already checked and removed */
    uint8_t type = f[0];
    const uint8_t *p = f + 3;
    uint8_t plen = (uint8_t)(len - 3);
    if (type == T_HELLO_REQ && plen == 0) {
        hello_pending = 1;
    } else if (type == T_TIME_REQ && plen == 4) {
        time_token = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
        time_pending = 1;
    } else if (type == T_LAMPS && plen == 4) {
        lamp_on = p[0];
        lamp_blink = p[2];
    } else if (type == T_REPLAY && plen == 2) {
        uint16_t from = (uint16_t)(p[0] | (p[1] << 8));
        uint16_t back = (uint16_t)(ev_next_seq - from);     /* events from 'from' on */
        uint16_t unsent = (uint16_t)(ev_next_seq - ev_send_seq);
        if (back <= ev_stored) {
            if (back > unsent)
                ev_send_seq = from; /* only ever move the send point back */
        } else {
            ev_send_seq = ev_oldest_seq();
            report_pending = 1;
            report_reason = R_REPLAY_GONE;
        }
    } else {
        rx_error();
    }
}

static __attribute__((noinline)) void rx_frame_done(void)
{
    if (rx_overlong) {
        rx_overlong = 0;
        rx_len = 0;
        rx_error();
        return;
    }
    if (rx_len == 0)
        return;
    /* COBS decode in place */
    uint8_t out[MAX_FRAME + 2];
    uint8_t o = 0, i = 0;
    while (i < rx_len) {
        uint8_t code = rxbuf[i++];
        if (code == 0 || (uint16_t)i + code - 1 > rx_len) {
            rx_len = 0;
            rx_error();
            return;
        }
        for (uint8_t k = 1; k < code; k++)
            out[o++] = rxbuf[i++];
        if (code != 0xFF && i < rx_len)
            out[o++] = 0;
    }
    rx_len = 0;
    if (o < 5) {
        rx_error();
        return;
    }
    uint16_t crc = 0xFFFF;
    for (uint8_t k = 0; k < o - 2; k++)
        crc = crc16_update(crc, out[k]);
    if ((uint8_t)crc != out[o - 2] || (uint8_t)(crc >> 8) != out[o - 1]) {
        rx_error();
        return;
    }
    handle_frame(out, (uint8_t)(o - 2));
}

static __attribute__((noinline)) void rx_byte(void)
{
    uint8_t err = UCSR0A & (_BV(FE0) | _BV(DOR0));
    uint8_t b = UDR0;
    if (err)
        rx_overlong = 1; /* drop this frame */
    if (b == 0) {
        rx_frame_done();
    } else if (rx_len < MAX_FRAME + 2) {
        rxbuf[rx_len++] = b;
    } else {
        rx_overlong = 1;
    }
}

static inline void rx_poll(void)
{
    if (UCSR0A & _BV(RXC0))
        rx_byte();
}

/* ------------------------------------------------------------------ main */
int main(void)
{
    /* inputs with pull-ups, lamps as outputs (off) */
    DDRD &= (uint8_t)~IN_D_MASK;
    PORTD |= IN_D_MASK;
    DDRB = (uint8_t)((DDRB & ~IN_B_MASK) | LAMP_B_MASK);
    PORTB = (uint8_t)((PORTB | IN_B_MASK) & ~LAMP_B_MASK);
    DDRC |= LAMP_C_MASK;
    PORTC &= (uint8_t)~LAMP_C_MASK;

    /* Timer1: normal mode, clk/8, no interrupts (overflow polled) */
    TCCR1A = 0;
    TCCR1B = _BV(CS11);
    TIMSK1 = 0;

    /* UART 1 Mbaud 8N1, polled */
    UBRR0H = (uint8_t)(BAUD_UBRR >> 8);
    UBRR0L = (uint8_t)BAUD_UBRR;
    UCSR0A = _BV(U2X0);
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
    UCSR0B = _BV(RXEN0) | _BV(TXEN0);

    /* a boot id that changes on every reset: a counter kept in EEPROM
       (the write takes ~14 ms; the UART is already listening) */
    boot_id = eeprom_read_dword((uint32_t *)0) + 1;
    eeprom_update_dword((uint32_t *)0, boot_id);

    /* the current levels are the starting point: no event for a button
       that is already held at power-on until it changes */
    level = reported = inputs_from_ports(PIND, PINB);

    /* pin-change interrupts on the inputs */
    PCMSK2 = IN_D_MASK;
    PCMSK0 = IN_B_MASK;
    PCIFR = _BV(PCIF0) | _BV(PCIF2);
    PCICR = _BV(PCIE0) | _BV(PCIE2);
    sei();

    for (;;) {
        /* one pass is short (a byte at 1 Mbaud lasts 160 cycles): the UART
           is served between the other jobs */
        timebase_poll();
        rx_poll();
        tx_poll();
        input_poll();
        tx_poll();
        rx_poll();
        lamps_poll();
    }
}
