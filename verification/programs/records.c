// Record and string manipulation in the style of Dhrystone: records with names and
// fields, string copies and compares, a linked list rebuilt in name order, and lookups.
// Checked against counts and sums kept independently of the list.
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define RECORDS 48

struct record {
    struct record *next;
    char name[16];
    int32_t id;
    int32_t balance;
    uint8_t kind;
};

static struct record pool[RECORDS];
static const char *const syllables[8] = {"ka", "lo", "mi", "nu", "ra", "se", "ti", "vo"};

static void make_name(char *out, uint32_t seed)
{
    out[0] = '\0';
    for (int i = 0; i < 3; i++) {
        strcat(out, syllables[seed & 7]);
        seed >>= 3;
    }
}

// Inserts `r` into the list at `*head` keeping names in strcmp order (ids break ties).
static void insert(struct record **head, struct record *r)
{
    while (*head) {
        int c = strcmp((*head)->name, r->name);
        if (c > 0 || (c == 0 && (*head)->id > r->id))
            break;
        head = &(*head)->next;
    }
    r->next = *head;
    *head = r;
}

static struct record *find(struct record *list, const char *name)
{
    for (; list; list = list->next)
        if (strcmp(list->name, name) == 0)
            return list;
    return 0;
}

int main(void)
{
    uint32_t seed = 2024;
    int64_t total = 0;
    unsigned kinds[4] = {0};
    struct record *list = 0;
    for (int i = 0; i < RECORDS; i++) {
        seed = seed * 1103515245u + 12345u;
        struct record *r = &pool[i];
        make_name(r->name, seed >> 10);
        r->id = i;
        r->balance = (int32_t)(seed >> 16) % 1000 - 300;
        r->kind = (seed >> 4) & 3;
        total += r->balance;
        kinds[r->kind]++;
        insert(&list, r);
    }
    // Walk: order, count, sums, per kind.
    int n = 0;
    int64_t walked = 0;
    unsigned walked_kinds[4] = {0};
    for (struct record *r = list; r; r = r->next, n++) {
        if (r->next && strcmp(r->name, r->next->name) > 0) {
            printf("records: out of order at %s\n", r->name);
            return 1;
        }
        walked += r->balance;
        walked_kinds[r->kind]++;
    }
    if (n != RECORDS || walked != total || memcmp(kinds, walked_kinds, sizeof kinds)) {
        printf("records: walked %d records\n", n);
        return 2;
    }
    // Transfers between records found by name, then a rename by string copy.
    char name[16];
    for (int i = 0; i < RECORDS; i++) {
        strcpy(name, pool[(i * 7) % RECORDS].name);
        struct record *from = find(list, name);
        struct record *to = find(list, pool[(i * 11 + 3) % RECORDS].name);
        if (!from || !to || strcmp(from->name, name)) {
            printf("records: lookup of %s failed\n", name);
            return 3;
        }
        from->balance -= 10;
        to->balance += 10;
    }
    int64_t after = 0;
    size_t letters = 0;
    for (struct record *r = list; r; r = r->next) {
        after += r->balance;
        letters += strlen(r->name);
    }
    if (after != total || letters != RECORDS * 6) {
        printf("records: transfers changed the total\n");
        return 4;
    }
    printf("records: %d records, first %s, last-kind counts %u %u %u %u, total %ld\n", n,
           list->name, kinds[0], kinds[1], kinds[2], kinds[3], (long)total);
    return 0;
}
