/* The key-value store of the benchmark's realistic rows, built twice: as a
 * snail-core program (kv.c) and, for the raw JSPI floor beside it, as a plain
 * module (kv_raw.c). kv.c says what it does.
 *
 * No function keeps a local in linear memory (the shadow stack): every
 * buffer is in the task's store, in the heap. So the plain build can run
 * many calls at once, each suspended in its own JSPI stack, without a stack
 * segment of its own.
 */
#pragma once

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_SIZE 4096
#define KEY_SIZE 16
#define MAX_DEPTH 4
#define MAX_VALUE 240

/* The block device: (device, block number, pointer to BLOCK_SIZE bytes);
 * 0 when done, anything else is a failure (the device's own, or the
 * runtime's status of a cancelled or failed wait). disk.read and
 * disk.write are the asynchronous backend, the _sync ones the synchronous. */
#define KV_DISK(NAME) __attribute__((import_module("disk"), import_name(#NAME)))
int32_t disk_read(int32_t device, int32_t block, void* buffer) KV_DISK(read);
int32_t disk_write(int32_t device, int32_t block, const void* buffer) KV_DISK(write);
int32_t disk_read_sync(int32_t device, int32_t block, void* buffer) KV_DISK(read_sync);
int32_t disk_write_sync(int32_t device, int32_t block, const void* buffer) KV_DISK(write_sync);

enum kv_error {
  KV_IO = -1,        /* the device refused a block operation */
  KV_CORRUPT = -2,   /* a block is not what the tree says it is */
  KV_MISMATCH = -3,  /* a value read back is not the one written */
  KV_NO_MEMORY = -4, /* malloc failed */
  KV_FULL = -5,      /* the tree would be deeper than MAX_DEPTH */
  KV_MISSING = -6,   /* a key written is not in the tree */
  KV_ARG = -7,       /* an argument out of range */
};

enum { KIND_LEAF = 1, KIND_INTERIOR = 2 };
#define SUPER_MAGIC 0x31564b53u /* "SKV1" */

struct super {
  uint32_t magic;
  uint32_t root;      /* the root node's block */
  uint32_t depth;     /* levels of the tree: 1 when the root is a leaf */
  uint32_t next_free; /* the first block never allocated */
  uint32_t log_block; /* the log's tail block */
  uint32_t log_used;  /* bytes used in it */
};

struct node_header {
  uint16_t kind;
  uint16_t count;
  uint32_t unused;
};

/* A leaf entry: a key and where its value is in the log. */
struct leaf_entry {
  char key[KEY_SIZE];
  uint32_t block;
  uint16_t offset;
  uint16_t length;
};
#define LEAF_CAP ((BLOCK_SIZE - sizeof(struct node_header)) / sizeof(struct leaf_entry))

/* An interior entry: keys at or above `key` (and below the next entry's)
 * are in `child`; keys below the first entry's are in child0. */
struct interior_entry {
  char key[KEY_SIZE];
  uint32_t child;
};
#define INTERIOR_CAP ((BLOCK_SIZE - sizeof(struct node_header) - sizeof(uint32_t)) / sizeof(struct interior_entry))

struct leaf {
  struct node_header h;
  struct leaf_entry e[LEAF_CAP];
};
struct interior {
  struct node_header h;
  uint32_t child0;
  struct interior_entry e[INTERIOR_CAP];
};

/* A record of the value log. */
struct record {
  char key[KEY_SIZE];
  uint32_t version;
  uint16_t length;
  uint16_t unused;
};

union block {
  uint8_t bytes[BLOCK_SIZE];
  struct super super;
  struct node_header header;
  struct leaf leaf;
  struct interior interior;
};

_Static_assert(sizeof(union block) == BLOCK_SIZE, "a node fits a block");
_Static_assert(LEAF_CAP == 170 && INTERIOR_CAP == 204, "the node capacities analysis.md states");
_Static_assert(sizeof(struct record) + MAX_VALUE <= BLOCK_SIZE, "a record fits a log block");

/* One task's store: its device, the superblock and the buffers of its block
 * I/O, in the heap (a task's stack segment is small). */
struct store {
  int32_t device;
  int async;
  struct super sb;
  int sb_dirty;
  union block path[MAX_DEPTH]; /* the nodes of the last walk, root first */
  uint32_t path_block[MAX_DEPTH];
  union block log;   /* the log's tail block, as last written */
  union block value; /* a log block read back */
  union block super_block;
  struct interior_entry split[INTERIOR_CAP + 1]; /* an interior node being split */
  char key[KEY_SIZE]; /* the key of the operation */
  char up[KEY_SIZE];  /* a separator that moves up to a parent */
  uint8_t expected[MAX_VALUE];
  uint32_t* versions; /* of every key, 0 before its first put */
  uint32_t checksum;
};

static int32_t read_block(struct store* s, uint32_t block, union block* into) {
  int32_t st = s->async ? disk_read(s->device, (int32_t)block, into) : disk_read_sync(s->device, (int32_t)block, into);
  return st == 0 ? 0 : KV_IO;
}

static int32_t write_block(struct store* s, uint32_t block, const union block* from) {
  int32_t st = s->async ? disk_write(s->device, (int32_t)block, from) : disk_write_sync(s->device, (int32_t)block, from);
  return st == 0 ? 0 : KV_IO;
}

static uint32_t allocate(struct store* s) {
  s->sb_dirty = 1;
  return s->sb.next_free++;
}

static int32_t write_super(struct store* s) {
  memset(&s->super_block, 0, sizeof s->super_block);
  s->super_block.super = s->sb;
  s->sb_dirty = 0;
  return write_block(s, 0, &s->super_block);
}

/* A well-mixed 32-bit hash (the finaliser of MurmurHash3). */
static uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  x *= 0xc2b2ae35u;
  x ^= x >> 16;
  return x;
}

/* The key of id `id`: "user:" and eight hex digits of a bijective scramble
 * of the id, so that ids in order insert keys in random order. */
static void make_key(char key[KEY_SIZE], uint32_t id) {
  static const char hex[] = "0123456789abcdef";
  uint32_t x = id * 0x9e3779b1u;
  memset(key, 0, KEY_SIZE);
  memcpy(key, "user:", 5);
  for (int i = 0; i < 8; i++) key[5 + i] = hex[(x >> (28 - 4 * i)) & 15];
}

/* The bytes of version `version` of key `id` on `device`; returns the length. */
static uint32_t make_value(uint8_t* out, int32_t device, uint32_t id, uint32_t version) {
  uint32_t x = mix(((uint32_t)device << 24) ^ mix(id) ^ (version * 0x27d4eb2du)) | 1u;
  uint32_t length = 16 + x % (MAX_VALUE - 16 + 1);
  for (uint32_t i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    out[i] = (uint8_t)x;
  }
  return length;
}

/* The position of the first leaf entry whose key is not below `key`. */
static uint32_t leaf_search(const struct leaf* n, const char* key) {
  uint32_t lo = 0, hi = n->h.count;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (memcmp(n->e[mid].key, key, KEY_SIZE) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* The number of interior entries whose key is not above `key`: the child to
 * follow is child0 for 0, else that entry's. */
static uint32_t interior_search(const struct interior* n, const char* key) {
  uint32_t lo = 0, hi = n->h.count;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (memcmp(n->e[mid].key, key, KEY_SIZE) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Reads the path from the root to the leaf that holds (or would hold) `key`
 * into s->path. */
static int32_t walk(struct store* s, const char* key) {
  uint32_t block = s->sb.root;
  for (uint32_t level = 0; level < s->sb.depth; level++) {
    union block* node = &s->path[level];
    int32_t st = read_block(s, block, node);
    if (st) return st;
    s->path_block[level] = block;
    int leaf = level + 1 == s->sb.depth;
    if (node->header.kind != (leaf ? KIND_LEAF : KIND_INTERIOR)) return KV_CORRUPT;
    if (node->header.count > (leaf ? LEAF_CAP : INTERIOR_CAP)) return KV_CORRUPT;
    if (!leaf) {
      uint32_t i = interior_search(&node->interior, key);
      block = i == 0 ? node->interior.child0 : node->interior.e[i - 1].child;
      if (block == 0 || block >= s->sb.next_free) return KV_CORRUPT;
    }
  }
  return 0;
}

/* Adds the separator `key` for the new node `child` to the parent at
 * `level` (the node read by the last walk), splitting it when it is full;
 * a split of the root makes a new root. */
static int32_t insert_into_parent(struct store* s, int level, const char* key, uint32_t child) {
  int32_t st;
  if (level < 0) {
    if (s->sb.depth == MAX_DEPTH) return KV_FULL;
    union block* root = &s->path[0]; /* free: the old root is written already */
    uint32_t old = s->sb.root;
    memset(root, 0, sizeof *root);
    root->interior.h.kind = KIND_INTERIOR;
    root->interior.h.count = 1;
    root->interior.child0 = old;
    memcpy(root->interior.e[0].key, key, KEY_SIZE);
    root->interior.e[0].child = child;
    s->sb.root = allocate(s);
    s->sb.depth++;
    return write_block(s, s->sb.root, root);
  }
  struct interior* n = &s->path[level].interior;
  uint32_t at = interior_search(n, key);
  if (n->h.count < INTERIOR_CAP) {
    memmove(&n->e[at + 1], &n->e[at], (n->h.count - at) * sizeof n->e[0]);
    memcpy(n->e[at].key, key, KEY_SIZE);
    n->e[at].child = child;
    n->h.count++;
    return write_block(s, s->path_block[level], &s->path[level]);
  }
  /* Full: the entries and the new one in order, then the lower half stays,
   * the middle one moves up and the upper half goes to a new node. */
  uint32_t total = n->h.count + 1;
  memcpy(s->split, n->e, at * sizeof n->e[0]);
  memcpy(s->split[at].key, key, KEY_SIZE);
  s->split[at].child = child;
  memcpy(&s->split[at + 1], &n->e[at], (n->h.count - at) * sizeof n->e[0]);
  uint32_t mid = total / 2;
  n->h.count = (uint16_t)mid;
  memcpy(n->e, s->split, mid * sizeof n->e[0]);
  union block* right = &s->value; /* free until the next get */
  memset(right, 0, sizeof *right);
  right->interior.h.kind = KIND_INTERIOR;
  right->interior.h.count = (uint16_t)(total - mid - 1);
  right->interior.child0 = s->split[mid].child;
  memcpy(right->interior.e, &s->split[mid + 1], (total - mid - 1) * sizeof n->e[0]);
  uint32_t right_block = allocate(s);
  /* `key` is consumed: it may be s->up itself. */
  memcpy(s->up, s->split[mid].key, KEY_SIZE);
  if ((st = write_block(s, right_block, right))) return st;
  if ((st = write_block(s, s->path_block[level], &s->path[level]))) return st;
  return insert_into_parent(s, level - 1, s->up, right_block);
}

/* Writes version `version` of key `id`. */
static int32_t put(struct store* s, uint32_t id, uint32_t version) {
  const char* key = s->key;
  make_key(s->key, id);
  int32_t st = walk(s, key);
  if (st) return st;

  /* The value goes to the log first, the leaf that points at it after. */
  uint32_t length = make_value(s->expected, s->device, id, version);
  uint32_t size = (uint32_t)sizeof(struct record) + length;
  if (s->sb.log_used + size > BLOCK_SIZE) {
    s->sb.log_block = allocate(s);
    s->sb.log_used = 0;
    memset(&s->log, 0, sizeof s->log);
  }
  uint32_t offset = s->sb.log_used; /* a multiple of 8 */
  struct record* r = (struct record*)&s->log.bytes[offset];
  memcpy(r->key, key, KEY_SIZE);
  r->version = version;
  r->length = (uint16_t)length;
  r->unused = 0;
  memcpy(&s->log.bytes[offset + sizeof *r], s->expected, length);
  s->sb.log_used = (offset + size + 7) & ~7u;
  if ((st = write_block(s, s->sb.log_block, &s->log))) return st;

  int level = (int)s->sb.depth - 1;
  struct leaf* n = &s->path[level].leaf;
  uint32_t at = leaf_search(n, key);
  int found = at < n->h.count && memcmp(n->e[at].key, key, KEY_SIZE) == 0;
  if (!found && n->h.count == LEAF_CAP) {
    /* Full: the upper half goes to a new leaf, whose first key is the
     * separator; the new entry goes to the half it belongs in. */
    union block* right = &s->value;
    uint32_t keep = LEAF_CAP / 2;
    memset(right, 0, sizeof *right);
    right->leaf.h.kind = KIND_LEAF;
    right->leaf.h.count = (uint16_t)(LEAF_CAP - keep);
    memcpy(right->leaf.e, &n->e[keep], (LEAF_CAP - keep) * sizeof n->e[0]);
    n->h.count = (uint16_t)keep;
    uint32_t right_block = allocate(s);
    struct leaf* into = n;
    if (at >= keep) {
      into = &right->leaf;
      at -= keep;
    }
    memmove(&into->e[at + 1], &into->e[at], (into->h.count - at) * sizeof into->e[0]);
    into->e[at] = (struct leaf_entry){ .block = s->sb.log_block, .offset = (uint16_t)offset, .length = (uint16_t)length };
    memcpy(into->e[at].key, key, KEY_SIZE);
    into->h.count++;
    memcpy(s->up, right->leaf.e[0].key, KEY_SIZE);
    if ((st = write_block(s, right_block, right))) return st;
    if ((st = write_block(s, s->path_block[level], &s->path[level]))) return st;
    if ((st = insert_into_parent(s, level - 1, s->up, right_block))) return st;
  } else {
    if (!found) {
      memmove(&n->e[at + 1], &n->e[at], (n->h.count - at) * sizeof n->e[0]);
      n->h.count++;
    }
    n->e[at] = (struct leaf_entry){ .block = s->sb.log_block, .offset = (uint16_t)offset, .length = (uint16_t)length };
    memcpy(n->e[at].key, key, KEY_SIZE);
    if ((st = write_block(s, s->path_block[level], &s->path[level]))) return st;
  }
  if (s->sb_dirty && (st = write_super(s))) return st;
  s->versions[id] = version;
  return 0;
}

/* Reads key `id` back and checks it is the version last written. */
static int32_t get(struct store* s, uint32_t id) {
  const char* key = s->key;
  make_key(s->key, id);
  int32_t st = walk(s, key);
  if (st) return st;
  struct leaf* n = &s->path[s->sb.depth - 1].leaf;
  uint32_t at = leaf_search(n, key);
  if (at == n->h.count || memcmp(n->e[at].key, key, KEY_SIZE) != 0) return KV_MISSING;
  struct leaf_entry e = n->e[at];
  if (e.block == 0 || e.block >= s->sb.next_free || e.offset % 8 != 0 ||
      e.offset + sizeof(struct record) + e.length > BLOCK_SIZE) {
    return KV_CORRUPT;
  }
  if ((st = read_block(s, e.block, &s->value))) return st;
  const struct record* r = (const struct record*)&s->value.bytes[e.offset];
  uint32_t length = make_value(s->expected, s->device, id, s->versions[id]);
  if (memcmp(r->key, key, KEY_SIZE) != 0 || r->version != s->versions[id] || r->length != length || e.length != length) {
    return KV_MISMATCH;
  }
  const uint8_t* bytes = &s->value.bytes[e.offset + sizeof *r];
  if (memcmp(bytes, s->expected, length) != 0) return KV_MISMATCH;
  /* FNV-1a over what was read, for the benchmark's comparison of runs. */
  uint32_t h = s->checksum;
  for (uint32_t i = 0; i < length; i++) h = (h ^ bytes[i]) * 16777619u;
  s->checksum = h;
  return 0;
}

/* Formats the device: a superblock, an empty root leaf, an empty log block. */
static int32_t format(struct store* s) {
  s->sb = (struct super){ .magic = SUPER_MAGIC, .root = 1, .depth = 1, .next_free = 3, .log_block = 2, .log_used = 0 };
  union block* root = &s->path[0];
  memset(root, 0, sizeof *root);
  root->leaf.h.kind = KIND_LEAF;
  memset(&s->log, 0, sizeof s->log);
  int32_t st;
  if ((st = write_block(s, 1, root))) return st;
  if ((st = write_block(s, 2, &s->log))) return st;
  if ((st = write_super(s))) return st;
  /* Read back, as opening a store would. */
  if ((st = read_block(s, 0, &s->super_block))) return st;
  if (s->super_block.super.magic != SUPER_MAGIC) return KV_CORRUPT;
  return 0;
}

static int32_t workload(struct store* s, uint32_t keys, uint32_t mixed) {
  int32_t st;
  if ((st = format(s))) return st;
  for (uint32_t id = 0; id < keys; id++) {
    if ((st = put(s, id, 1))) return st;
  }
  uint32_t x = mix((uint32_t)s->device + 1) | 1u;
  for (uint32_t i = 0; i < mixed; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    uint32_t id = (x >> 1) % keys;
    st = (x & 1) ? put(s, id, s->versions[id] + 1) : get(s, id);
    if (st) return st;
  }
  for (uint32_t id = 0; id < keys; id++) {
    if ((st = get(s, id))) return st;
  }
  return (int32_t)(s->checksum & 0x7fffffffu);
}

/* A task's whole run on the device and sizes `arg` says (kv.c). */
static int32_t kv_run(int32_t arg, int async) {
  uint32_t a = (uint32_t)arg;
  uint32_t keys = ((a >> 8) & 0xfffu) * 16;
  uint32_t mixed = ((a >> 20) & 0x7ffu) * 64;
  if (keys == 0) return KV_ARG;
  struct store* s = malloc(sizeof *s);
  if (!s) return KV_NO_MEMORY;
  memset(s, 0, sizeof *s);
  s->device = (int32_t)(a & 0xffu);
  s->async = async;
  s->checksum = 2166136261u;
  s->versions = calloc(keys, sizeof *s->versions);
  int32_t result = s->versions ? workload(s, keys, mixed) : KV_NO_MEMORY;
  free(s->versions);
  free(s);
  return result;
}

