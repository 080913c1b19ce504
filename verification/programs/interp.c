// A small stack-machine interpreter running two bytecode programs (iterative
// Fibonacci and a sum of squares), checked against the same computations done natively.
#include <stdint.h>
#include <stdio.h>

enum op { PUSH, LOAD, STORE, ADD, SUB, MUL, JNZ, JMP, DUP, HALT };

struct insn {
    enum op op;
    int64_t arg;
};

static int64_t run(const struct insn *prog, int64_t *vars)
{
    int64_t stack[32];
    int sp = 0, pc = 0;
    for (;;) {
        const struct insn *i = &prog[pc++];
        switch (i->op) {
        case PUSH: stack[sp++] = i->arg; break;
        case LOAD: stack[sp++] = vars[i->arg]; break;
        case STORE: vars[i->arg] = stack[--sp]; break;
        case ADD: sp--; stack[sp - 1] += stack[sp]; break;
        case SUB: sp--; stack[sp - 1] -= stack[sp]; break;
        case MUL: sp--; stack[sp - 1] *= stack[sp]; break;
        case DUP: stack[sp] = stack[sp - 1]; sp++; break;
        case JNZ: if (stack[--sp]) pc = (int)i->arg; break;
        case JMP: pc = (int)i->arg; break;
        case HALT: return sp ? stack[sp - 1] : 0;
        }
    }
}

// vars: 0 = n, 1 = a, 2 = b
static const struct insn fib[] = {
    {PUSH, 0}, {STORE, 1}, {PUSH, 1}, {STORE, 2},
    /* 4: */ {LOAD, 0}, {JNZ, 7}, {JMP, 17},
    /* 7: */ {LOAD, 1}, {LOAD, 2}, {ADD, 0}, {LOAD, 2}, {STORE, 1}, {STORE, 2},
    {LOAD, 0}, {PUSH, 1}, {SUB, 0}, {STORE, 0},
    /* 17: loop while n != 0 */
    {LOAD, 0}, {JNZ, 7}, {LOAD, 1}, {HALT, 0},
};

// vars: 0 = n, 1 = acc
static const struct insn squares[] = {
    {PUSH, 0}, {STORE, 1},
    /* 2: */ {LOAD, 0}, {DUP, 0}, {MUL, 0}, {LOAD, 1}, {ADD, 0}, {STORE, 1},
    {LOAD, 0}, {PUSH, 1}, {SUB, 0}, {DUP, 0}, {STORE, 0}, {JNZ, 2},
    {LOAD, 1}, {HALT, 0},
};

int main(void)
{
    for (int64_t n = 1; n <= 60; n += 7) {
        int64_t vars[3] = {n, 0, 0};
        int64_t got = run(fib, vars);
        int64_t a = 0, b = 1;
        for (int64_t k = 0; k < n; k++) {
            int64_t t = a + b;
            a = b;
            b = t;
        }
        if (got != a) {
            printf("interp: fib(%lld) = %lld, expected %lld\n", (long long)n, (long long)got, (long long)a);
            return 1;
        }
    }
    int64_t vars[2] = {100, 0};
    int64_t sq = run(squares, vars);
    if (sq != 100 * 101 * 201 / 6) {
        printf("interp: sum of squares %lld\n", (long long)sq);
        return 2;
    }
    printf("interp: fib and squares ok (%lld)\n", (long long)sq);
    return 0;
}
