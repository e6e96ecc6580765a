/*
 * buzzer-sim: runs the button-box firmware in simavr and wires it up.
 *
 *   buzzer-sim FIRMWARE.elf [--link PATH] [--wallclock] [--freq HZ]
 *
 * The firmware's UART0 is connected to a pty (raw mode); its slave path is
 * printed, and with --link PATH a symlink PATH -> /dev/pts/N is kept, the way
 * udev keeps /dev/serial/by-id/... for a real box.  The host bridge opens it
 * with pyserial like a real port.
 *
 * Commands, one per line on stdin; every reply is one line on stdout
 * (simavr's own chatter is sent to stderr):
 *
 *   press I [at C]     input I goes low (pressed) at cycle C (default: now)
 *   release I [at C]   input I goes high at cycle C
 *   run C              run until cycle C             -> "ok CYCLE"
 *   runfor N           run N more cycles             -> "ok CYCLE"
 *   cycle              -> "cycle CYCLE"
 *   lamps              -> "lamps MASK" (bit i = lamp i's output pin is high)
 *   peek ADDR [LEN]    -> "peek XX XX ..." data-space bytes (debugging)
 *   reset              reset the MCU (like the reset button) -> "ok CYCLE"
 *   unplug / replug    close the pty / open a new one and re-point the link
 *   quit
 *
 * Step mode (default): the simulation only advances inside run/runfor, so a
 * test is fully deterministic.  Wall-clock mode (--wallclock): the simulation
 * runs continuously, throttled to real time; "press I" then happens at once
 * and the reply "pressed I CYCLE MONO_NS" gives the CLOCK_MONOTONIC time of
 * the edge, for latency measurements.
 *
 * Pin changes are applied between instructions, at the first instruction
 * boundary at or after their cycle (at most 4 cycles = 0.25 us late).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <simavr/avr_ioport.h>
#include <simavr/avr_uart.h>
#include <simavr/sim_avr.h>
#include <simavr/sim_elf.h>
#include <simavr/sim_irq.h>

#define N_INPUTS 8
#define PUMP_CYCLES 512 /* pty I/O every 32 us of simulated time */

static avr_t *avr;
static FILE *reply;
static int master_fd = -1, slave_fd = -1;
static const char *link_path;
static int wallclock;

/* ---------------------------------------------------------- input pins */
static const char in_port[N_INPUTS] = {'D', 'D', 'D', 'D', 'D', 'D', 'B', 'B'};
static const int in_pin[N_INPUTS] = {2, 3, 4, 5, 6, 7, 0, 1};
static int in_level[N_INPUTS]; /* 1 = high (released) */

typedef struct {
    uint64_t cycle;
    int input;
    int level;
} pin_change_t;

#define MAX_PENDING 8192
static pin_change_t pending[MAX_PENDING];
static int n_pending;

static void set_input(int i, int level)
{
    in_level[i] = level;
    avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(in_port[i]), in_pin[i]), level);
}

static int schedule(uint64_t cycle, int input, int level)
{
    if (n_pending >= MAX_PENDING)
        return -1;
    /* keep sorted by cycle; equal cycles keep command order */
    int k = n_pending;
    while (k > 0 && pending[k - 1].cycle > cycle) {
        pending[k] = pending[k - 1];
        k--;
    }
    pending[k].cycle = cycle;
    pending[k].input = input;
    pending[k].level = level;
    n_pending++;
    return 0;
}

static void apply_due(void)
{
    int k = 0;
    while (k < n_pending && pending[k].cycle <= avr->cycle) {
        set_input(pending[k].input, pending[k].level);
        k++;
    }
    if (k) {
        memmove(pending, pending + k, (size_t)(n_pending - k) * sizeof(pending[0]));
        n_pending -= k;
    }
}

/* ------------------------------------------------------------ UART <-> pty */
static uint8_t out_buf[1 << 16];
static size_t out_len;
static uint8_t in_buf[4096];
static size_t in_len, in_pos;
static int uart_xoff;
static avr_irq_t *uart_in_irq;

static void uart_out_hook(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    if (out_len < sizeof(out_buf))
        out_buf[out_len++] = (uint8_t)value;
}

static void uart_xon_hook(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)value;
    (void)param;
    uart_xoff = 0;
}

static void uart_xoff_hook(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    uart_xoff = value ? 1 : 0;
}

static void pty_open(void)
{
    struct termios tio;
    if (openpty(&master_fd, &slave_fd, NULL, NULL, NULL) < 0) {
        perror("openpty");
        exit(1);
    }
    tcgetattr(slave_fd, &tio);
    cfmakeraw(&tio);
    tcsetattr(slave_fd, TCSANOW, &tio);
    fcntl(master_fd, F_SETFL, fcntl(master_fd, F_GETFL) | O_NONBLOCK);
    if (link_path) {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.tmp", link_path);
        unlink(tmp);
        if (symlink(ptsname(master_fd), tmp) == 0)
            rename(tmp, link_path);
    }
}

static void pty_close(void)
{
    if (link_path)
        unlink(link_path);
    if (master_fd >= 0)
        close(master_fd);
    if (slave_fd >= 0)
        close(slave_fd);
    master_fd = slave_fd = -1;
    out_len = in_len = in_pos = 0;
}

static void pump_pty(void)
{
    if (master_fd < 0) {
        out_len = 0; /* unplugged: bytes go nowhere */
        return;
    }
    if (out_len) {
        ssize_t w = write(master_fd, out_buf, out_len);
        (void)w; /* a full pty (nobody reading) drops bytes, like a cable */
        out_len = 0;
    }
    if (in_pos == in_len) {
        ssize_t r = read(master_fd, in_buf, sizeof in_buf);
        in_pos = 0;
        in_len = r > 0 ? (size_t)r : 0;
    }
    while (in_pos < in_len && !uart_xoff)
        avr_raise_irq(uart_in_irq, in_buf[in_pos++]);
}

/* -------------------------------------------------------------- running */
static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t wall_start_ns, wall_start_cycle;

static int run_until(uint64_t target)
{
    uint64_t next_pump = avr->cycle + PUMP_CYCLES;
    while (avr->cycle < target) {
        if (n_pending && pending[0].cycle <= avr->cycle)
            apply_due();
        int state = avr_run(avr);
        if (state == cpu_Done || state == cpu_Crashed) {
            fprintf(stderr, "buzzer-sim: firmware stopped (state %d)\n", state);
            return -1;
        }
        if (avr->cycle >= next_pump) {
            next_pump = avr->cycle + PUMP_CYCLES;
            pump_pty();
        }
    }
    pump_pty();
    return 0;
}

static uint8_t lamp_mask(void)
{
    /* lamps 0..3 = PB2..PB5, lamps 4..7 = PC0..PC3; read the PORT registers */
    uint8_t portb = avr->data[0x25], portc = avr->data[0x28];
    return (uint8_t)(((portb >> 2) & 0x0F) | ((portc & 0x0F) << 4));
}

static void restore_inputs(void)
{
    /* avr_reset clears the PIN registers, but the pin IRQs remember their
       old value and ignore a raise to the same value: toggle them */
    for (int i = 0; i < N_INPUTS; i++) {
        int level = in_level[i];
        set_input(i, !level);
        set_input(i, level);
    }
}

static int handle_command(char *line)
{
    char cmd[32];
    long long a = 0, b = 0;
    char word[8];
    int n = sscanf(line, "%31s %lld %7s %lld", cmd, &a, word, &b);
    if (n < 1)
        return 0;
    if (!strcmp(cmd, "press") || !strcmp(cmd, "release")) {
        int level = !strcmp(cmd, "release");
        if (n < 2 || a < 0 || a >= N_INPUTS) {
            fprintf(reply, "error bad input\n");
        } else if (n >= 4 && !strcmp(word, "at")) {
            if (schedule((uint64_t)b, (int)a, level) < 0)
                fprintf(reply, "error queue full\n");
            else
                fprintf(reply, "ok %llu\n", (unsigned long long)avr->cycle);
        } else {
            set_input((int)a, level);
            fprintf(reply, "%s %lld %llu %llu\n", level ? "released" : "pressed", a,
                    (unsigned long long)avr->cycle, (unsigned long long)mono_ns());
        }
    } else if (!strcmp(cmd, "run") || !strcmp(cmd, "runfor")) {
        uint64_t target = !strcmp(cmd, "run") ? (uint64_t)a : avr->cycle + (uint64_t)a;
        if (run_until(target) < 0)
            return -1;
        fprintf(reply, "ok %llu\n", (unsigned long long)avr->cycle);
    } else if (!strcmp(cmd, "cycle")) {
        fprintf(reply, "cycle %llu\n", (unsigned long long)avr->cycle);
    } else if (!strcmp(cmd, "peek")) {
        /* peek ADDR [LEN]: data-space bytes (SRAM, I/O) in hex, for debugging */
        long long len = n >= 3 ? strtoll(word, NULL, 10) : 1;
        fprintf(reply, "peek");
        for (long long k = 0; k < len && a + k <= avr->ramend; k++)
            fprintf(reply, " %02x", avr->data[a + k]);
        fprintf(reply, "\n");
    } else if (!strcmp(cmd, "pc")) {
        fprintf(reply, "pc %u\n", (unsigned)avr->pc);
    } else if (!strcmp(cmd, "lamps")) {
        fprintf(reply, "lamps %u\n", lamp_mask());
    } else if (!strcmp(cmd, "reset")) {
        avr_reset(avr);
        restore_inputs();
        fprintf(reply, "ok %llu\n", (unsigned long long)avr->cycle);
    } else if (!strcmp(cmd, "unplug")) {
        pty_close();
        fprintf(reply, "ok unplugged\n");
    } else if (!strcmp(cmd, "replug")) {
        if (master_fd < 0)
            pty_open();
        fprintf(reply, "ok %s\n", ptsname(master_fd));
    } else if (!strcmp(cmd, "quit")) {
        fprintf(reply, "bye\n");
        fflush(reply);
        return -1;
    } else {
        fprintf(reply, "error unknown command %s\n", cmd);
    }
    fflush(reply);
    return 0;
}

int main(int argc, char **argv)
{
    const char *elf = NULL;
    uint32_t freq = 16000000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--link") && i + 1 < argc)
            link_path = argv[++i];
        else if (!strcmp(argv[i], "--wallclock"))
            wallclock = 1;
        else if (!strcmp(argv[i], "--freq") && i + 1 < argc)
            freq = (uint32_t)strtoul(argv[++i], NULL, 10);
        else
            elf = argv[i];
    }
    if (!elf) {
        fprintf(stderr, "usage: %s FIRMWARE.elf [--link PATH] [--wallclock] [--freq HZ]\n", argv[0]);
        return 2;
    }
    /* replies on the real stdout; everything simavr prints goes to stderr */
    reply = fdopen(dup(1), "w");
    dup2(2, 1);
    signal(SIGPIPE, SIG_IGN);

    elf_firmware_t fw;
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(elf, &fw) != 0) {
        fprintf(stderr, "buzzer-sim: cannot read %s\n", elf);
        return 1;
    }
    strcpy(fw.mmcu, "atmega328p");
    fw.frequency = freq;
    avr = avr_make_mcu_by_name(fw.mmcu);
    if (!avr) {
        fprintf(stderr, "buzzer-sim: simavr has no atmega328p\n");
        return 1;
    }
    avr_init(avr);
    avr_load_firmware(avr, &fw);
    avr->log = 0;

    uint32_t flags = 0; /* no console echo, no usleep while polling */
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    uart_in_irq = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT), uart_out_hook, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON), uart_xon_hook, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF), uart_xoff_hook, NULL);

    for (int i = 0; i < N_INPUTS; i++)
        set_input(i, 1); /* the pull-ups hold every button high */

    pty_open();
    fprintf(reply, "ready %s %u\n", ptsname(master_fd), freq);
    fflush(reply);

    char line[256];
    size_t line_len = 0;
    int stdin_fd = 0;
    if (wallclock)
        fcntl(stdin_fd, F_SETFL, fcntl(stdin_fd, F_GETFL) | O_NONBLOCK);
    wall_start_ns = mono_ns();
    wall_start_cycle = avr->cycle;

    for (;;) {
        if (wallclock) {
            /* run in 100 us slices, sleeping when ahead of real time */
            uint64_t slice = freq / 10000;
            if (run_until(avr->cycle + slice) < 0)
                break;
            uint64_t sim_ns = (avr->cycle - wall_start_cycle) * 1000000000ull / freq;
            uint64_t real_ns = mono_ns() - wall_start_ns;
            if (sim_ns > real_ns + 50000) {
                struct timespec ts = {0, (long)(sim_ns - real_ns)};
                nanosleep(&ts, NULL);
            } else if (real_ns > sim_ns + 100000000ull) {
                /* too slow to keep up: give up the backlog, stay near real time */
                wall_start_ns = mono_ns();
                wall_start_cycle = avr->cycle;
            }
        }
        char c;
        ssize_t r;
        int quit = 0;
        while ((r = read(stdin_fd, &c, 1)) == 1) {
            if (c == '\n') {
                line[line_len] = 0;
                line_len = 0;
                if (handle_command(line) < 0) {
                    quit = 1;
                    break;
                }
                if (wallclock)
                    continue;
                break;
            }
            if (line_len < sizeof line - 1)
                line[line_len++] = c;
        }
        if (quit || r == 0)
            break; /* quit, or stdin closed: the driver is gone */
        if (!wallclock && r < 0 && errno != EINTR)
            break;
    }
    pty_close();
    return 0;
}
