// SPDX-License-Identifier: GPL-2.0
/*
 * Encrypted dumps (see include/uapi/linux/diskdump.h): unwrapping the dump
 * key with the RSA private key, checking the Poly1305 MAC of the whole dump
 * before anything is decoded, and decrypting blocks as they are read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include "ddcore.h"
#include "savecore.h"

struct dd_crypt {
	uint8_t key[DISKDUMP_KEY_SIZE];
	uint8_t nonce[DISKDUMP_NONCE_SIZE];
	EVP_CIPHER_CTX *ctx;
};

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/*
 * The ChaCha20 counter and nonce of partition block @block: { 0, the
 * block's low word, the nonce's first word XOR the block's high word, the
 * nonce's second word }, as the format says (include/uapi/linux/diskdump.h).
 */
void dd_block_iv(uint8_t iv[16], const uint8_t nonce[DISKDUMP_NONCE_SIZE],
		 uint64_t block)
{
	put_le32(iv, 0);
	put_le32(iv + 4, (uint32_t)block);
	put_le32(iv + 8, get_le32(nonce) ^ (uint32_t)(block >> 32));
	memcpy(iv + 12, nonce + 4, DISKDUMP_NONCE_SIZE - 4);
}

static int chacha_xor(EVP_CIPHER_CTX *ctx, const uint8_t key[DISKDUMP_KEY_SIZE],
		      const uint8_t nonce[DISKDUMP_NONCE_SIZE], uint64_t block,
		      uint8_t *buf, int len)
{
	uint8_t iv[16];
	int out;

	dd_block_iv(iv, nonce, block);
	if (!EVP_EncryptInit_ex(ctx, EVP_chacha20(), NULL, key, iv) ||
	    !EVP_EncryptUpdate(ctx, buf, &out, buf, len) || out != len)
		return -1;
	return 0;
}

static int mac_emit(void *arg, struct dd_chunk *c)
{
	return EVP_MAC_update(arg, c->buf, c->n * DISKDUMP_BLOCK_SIZE) ? 0 : -DD_EXIT_ERROR;
}

/*
 * The MAC of the dump as it is on @dev (see include/uapi/linux/diskdump.h),
 * before dd_unseal() sets dev->decrypt: the blocks as they are.
 */
static int dump_mac(struct dd_dev *dev, const struct diskdump_header *h,
		    const uint8_t key[DISKDUMP_KEY_SIZE], uint8_t mac[DISKDUMP_MAC_SIZE])
{
	uint64_t end = h->data_block + h->written_pages;
	struct diskdump_header copy = *h;
	EVP_CIPHER_CTX *cctx = EVP_CIPHER_CTX_new();
	EVP_MAC *alg = EVP_MAC_fetch(NULL, "POLY1305", NULL);
	EVP_MAC_CTX *ctx = alg ? EVP_MAC_CTX_new(alg) : NULL;
	struct dd_pipe pipe = { .emit = mac_emit, .arg = ctx };
	uint8_t otk[32] = { 0 };
	size_t len = 0;
	int ret = -1;

	if (!cctx || !ctx || chacha_xor(cctx, key, h->nonce, 0, otk, sizeof(otk)) ||
	    !EVP_MAC_init(ctx, otk, sizeof(otk), NULL) ||
	    (end > 1 && dd_pipe_run(dev, 1, end - 1, &pipe)))
		goto out;
	copy.crc = 0;
	memset(copy.mac, 0, sizeof(copy.mac));
	if (EVP_MAC_update(ctx, (const uint8_t *)&copy, sizeof(copy)) &&
	    EVP_MAC_final(ctx, mac, &len, DISKDUMP_MAC_SIZE) && len == DISKDUMP_MAC_SIZE)
		ret = 0;
out:
	OPENSSL_cleanse(otk, sizeof(otk));
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(alg);
	EVP_CIPHER_CTX_free(cctx);
	return ret;
}

void dd_key_id_hex(const uint8_t id[DISKDUMP_KEY_ID_SIZE], char out[2 * DISKDUMP_KEY_ID_SIZE + 1])
{
	for (int i = 0; i < DISKDUMP_KEY_ID_SIZE; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
}

/* SHA-256 of the public half's DER (PKCS#1 RSAPublicKey), as the kernel. */
static int key_id_of(EVP_PKEY *pk, uint8_t id[DISKDUMP_KEY_ID_SIZE])
{
	unsigned char *der = NULL;
	unsigned int len = 0;
	int dl = i2d_PublicKey(pk, &der);
	int ok = dl > 0 && EVP_Digest(der, (size_t)dl, id, &len, EVP_sha256(), NULL) &&
		 len == DISKDUMP_KEY_ID_SIZE;

	OPENSSL_free(der);
	return ok ? 0 : -1;
}

static EVP_PKEY *load_private_key(const char *path, char *why, size_t whylen)
{
	FILE *f = fopen(path, "re");
	EVP_PKEY *pk;

	if (!f) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	pk = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	if (!pk) {
		snprintf(why, whylen, "%s: not a PEM private key", path);
		return NULL;
	}
	if (EVP_PKEY_get_base_id(pk) != EVP_PKEY_RSA) {
		snprintf(why, whylen, "%s: not an RSA key", path);
		EVP_PKEY_free(pk);
		return NULL;
	}
	return pk;
}

static int unwrap_key(EVP_PKEY *pk, const struct diskdump_header *h,
		      uint8_t key[DISKDUMP_KEY_SIZE])
{
	EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new(pk, NULL);
	uint8_t out[DISKDUMP_WRAPPED_MAX];
	size_t len = sizeof(out);
	int ret = -1;

	if (pc && EVP_PKEY_decrypt_init(pc) > 0 &&
	    EVP_PKEY_CTX_set_rsa_padding(pc, RSA_PKCS1_PADDING) > 0 &&
	    EVP_PKEY_decrypt(pc, out, &len, h->wrapped_key, h->wrapped_key_size) > 0 &&
	    len == DISKDUMP_KEY_SIZE) {
		memcpy(key, out, DISKDUMP_KEY_SIZE);
		ret = 0;
	}
	OPENSSL_cleanse(out, sizeof(out));
	EVP_PKEY_CTX_free(pc);
	return ret;
}

static int decrypt_blocks(struct dd_dev *dev, uint64_t block, void *buf, uint64_t n)
{
	struct dd_crypt *c = dev->crypt;

	for (uint64_t i = 0; i < n; i++) {
		if (block + i == 0)
			continue;	/* the header is in clear */
		if (chacha_xor(c->ctx, c->key, c->nonce, block + i,
			       (uint8_t *)buf + i * DISKDUMP_BLOCK_SIZE, DISKDUMP_BLOCK_SIZE)) {
			fprintf(stderr, "%s: cannot decrypt block %" PRIu64 "\n", dev->path,
				block + i);
			return -1;
		}
	}
	return 0;
}

static void free_crypt(void *p)
{
	struct dd_crypt *c = p;

	if (!c)
		return;
	EVP_CIPHER_CTX_free(c->ctx);
	OPENSSL_cleanse(c, sizeof(*c));
	free(c);
}

int dd_unseal(struct dd_dev *dev, const struct diskdump_header *h, bool unverified,
	      char *why, size_t whylen)
{
	uint8_t id[DISKDUMP_KEY_ID_SIZE], mac[DISKDUMP_MAC_SIZE];
	char want[2 * DISKDUMP_KEY_ID_SIZE + 1], have[2 * DISKDUMP_KEY_ID_SIZE + 1];
	struct dd_crypt *c;
	EVP_PKEY *pk;
	int ret = -DD_EXIT_CORRUPT;

	pk = load_private_key(dev->keyfile, why, whylen);
	if (!pk)
		return -DD_EXIT_ERROR;
	c = calloc(1, sizeof(*c));
	if (c)
		c->ctx = EVP_CIPHER_CTX_new();
	if (!c || !c->ctx || key_id_of(pk, id)) {
		snprintf(why, whylen, "out of memory");
		ret = -DD_EXIT_ERROR;
		goto fail;
	}
	if (memcmp(id, h->key_id, sizeof(id))) {
		dd_key_id_hex(h->key_id, want);
		dd_key_id_hex(id, have);
		snprintf(why, whylen,
			 "wrong key: the dump is encrypted for key sha256:%.16s..., %s is sha256:%.16s...",
			 want, dev->keyfile, have);
		ret = -DD_EXIT_ERROR;
		goto fail;
	}
	if (h->wrapped_key_size != (uint32_t)EVP_PKEY_get_size(pk) ||
	    unwrap_key(pk, h, c->key)) {
		snprintf(why, whylen,
			 "the wrapped dump key does not decrypt with %s: the header is damaged",
			 dev->keyfile);
		goto fail;
	}
	memcpy(c->nonce, h->nonce, sizeof(c->nonce));
	if (h->status == DISKDUMP_STATUS_WRITING) {
		/* A dump cut short by a second panic: never sealed. */
		if (!unverified) {
			snprintf(why, whylen,
				 "the encrypted dump was never finished, so it has no MAC to check; -f decodes it unverified");
			goto fail;
		}
		fprintf(stderr, "savecore: %s: decoding an UNVERIFIED encrypted dump (-f)\n",
			dev->path);
	} else if (dump_mac(dev, h, c->key, mac) ||
		   CRYPTO_memcmp(mac, h->mac, sizeof(mac))) {
		snprintf(why, whylen,
			 "integrity check failed: the encrypted dump was altered or damaged; nothing decoded");
		goto fail;
	}
	EVP_PKEY_free(pk);
	dev->crypt = c;
	dev->decrypt = decrypt_blocks;
	dev->crypt_free = free_crypt;
	return 0;
fail:
	free_crypt(c);
	EVP_PKEY_free(pk);
	return ret;
}
