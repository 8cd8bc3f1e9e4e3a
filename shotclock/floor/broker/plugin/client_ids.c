/*
 * shotclock's client-id plugin for Mosquitto 2.0 (the v5 plugin API): a table's session is its own.
 *
 * MQTT gives a session to whoever connects last with its client id, and Mosquitto's password file knows no
 * client ids. `shotclock broker-config` writes the bindings (the file `client-ids`, one
 * "CLIENT_ID USERNAME" per line; USERNAME "-": no login at all) and builds this plugin; at each CONNECT it
 * refuses (CONNACK "not authorised"), before any session is taken:
 *
 *   - a bound client id under any other login (the overlay's, the floor's, another table's ...);
 *   - a bound login (a table's, a room bridge's) with any client id but its own.
 *
 * Everything else it leaves to the password file and the ACL (MOSQ_ERR_PLUGIN_DEFER: Mosquitto then asks the
 * password file, whose check it registers after the plugins').
 *
 * Mosquitto before 2.0.15 closes a session taken over without a word (2.0.15 sends DISCONNECT with reason
 * 0x8E). So, built against an older one, the plugin tells the connection being replaced: when a bound login
 * names its own client id with its right password (checked here against the same password file:
 * $7$ PBKDF2-SHA512 or $6$ SHA-512), the connection that holds that client id now is disconnected with reason
 * 0x98 (administrative action) just before the new one takes the session, and the device can say so.
 *
 * Both files are read again on SIGHUP. One that cannot be read at the start stops the broker; on a reload the
 * bindings in force stay, with a warning in the broker's log.
 */

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <mosquitto.h>
#include <mosquitto_broker.h>
#include <mosquitto_plugin.h>

#define MAX_LINE 1024          /* bytes in one line of either file */
#define MAX_BINDINGS 100000    /* lines of client-ids */
#define NOBODY "-"             /* the username of a client id no login may use (a room bridge's local side) */
#define SALT_LEN 12            /* what Mosquitto's password file holds */
#define HASH_LEN 64

#if LIBMOSQUITTO_VERSION_NUMBER < 2000015
#define TELL_TAKEOVER 1        /* this Mosquitto does not send DISCONNECT 0x8E itself */
#else
#define TELL_TAKEOVER 0
#endif

struct binding {
	char *client_id;
	char *username;
	int hash_type;             /* 0: no password found for username; 6 or 7: as in the password file */
	int iterations;
	unsigned char salt[SALT_LEN];
	unsigned char hash[HASH_LEN];
};

struct bindings {
	struct binding *items;
	size_t count;
};

static mosquitto_plugin_id_t *plugin_id;
static char *bindings_file;
static char *password_file;
static struct bindings current;

static void free_bindings(struct bindings *b)
{
	size_t i;

	for(i = 0; i < b->count; i++){
		free(b->items[i].client_id);
		free(b->items[i].username);
	}
	free(b->items);
	b->items = NULL;
	b->count = 0;
}

/* Trim blanks at both ends, in place. */
static char *trim(char *s)
{
	char *end;

	while(isspace((unsigned char)*s)) s++;
	end = s + strlen(s);
	while(end > s && isspace((unsigned char)end[-1])) end--;
	*end = '\0';
	return s;
}

/* One line of `file` into buf; 1: a line, 0: end of file, -1: too long (named in the log). */
static int read_line(FILE *f, char *buf, const char *file, int line)
{
	size_t len;

	if(!fgets(buf, MAX_LINE, f)) return 0;
	len = strlen(buf);
	if(len == MAX_LINE - 1 && buf[len - 1] != '\n' && !feof(f)){
		mosquitto_log_printf(MOSQ_LOG_ERR, "shotclock client ids: %s line %d is longer than %d bytes",
				file, line, MAX_LINE - 2);
		return -1;
	}
	return 1;
}

static int read_bindings(const char *file, struct bindings *out)
{
	FILE *f;
	char buf[MAX_LINE];
	char *line, *id, *user, *rest, *save = NULL;
	int n = 0, rc;
	size_t i;

	f = fopen(file, "r");
	if(!f){
		mosquitto_log_printf(MOSQ_LOG_ERR, "shotclock client ids: cannot read %s: %s", file, strerror(errno));
		return MOSQ_ERR_UNKNOWN;
	}
	while((rc = read_line(f, buf, file, ++n)) == 1){
		line = trim(buf);
		if(line[0] == '\0' || line[0] == '#') continue;
		id = strtok_r(line, " \t", &save);
		user = strtok_r(NULL, " \t", &save);
		rest = strtok_r(NULL, " \t", &save);
		if(!id || !user || rest){
			mosquitto_log_printf(MOSQ_LOG_ERR, "shotclock client ids: %s line %d: expected CLIENT_ID USERNAME",
					file, n);
			rc = -1;
			break;
		}
		for(i = 0; i < out->count; i++){
			if(!strcmp(out->items[i].client_id, id)) break;
		}
		if(i < out->count){
			mosquitto_log_printf(MOSQ_LOG_ERR, "shotclock client ids: %s line %d: client id %s is bound twice",
					file, n, id);
			rc = -1;
			break;
		}
		if(out->count == MAX_BINDINGS){
			mosquitto_log_printf(MOSQ_LOG_ERR, "shotclock client ids: %s holds more than %d bindings",
					file, MAX_BINDINGS);
			rc = -1;
			break;
		}
		if(out->count % 256 == 0){
			struct binding *grown = realloc(out->items, (out->count + 256) * sizeof(struct binding));
			if(!grown){
				rc = -1;
				break;
			}
			out->items = grown;
		}
		memset(&out->items[out->count], 0, sizeof(struct binding));
		out->items[out->count].client_id = strdup(id);
		out->items[out->count].username = strdup(user);
		out->count++;
		if(!out->items[out->count - 1].client_id || !out->items[out->count - 1].username){
			rc = -1;
			break;
		}
	}
	fclose(f);
	return rc == 0 ? MOSQ_ERR_SUCCESS : MOSQ_ERR_UNKNOWN;
}

/* Standard base64 of exactly `want` bytes into out; false otherwise. */
static bool decode(const char *text, unsigned char *out, int want)
{
	unsigned char buf[HASH_LEN + 3];
	size_t len = strlen(text);
	int got, pad = 0;

	if(len == 0 || len % 4 != 0 || len / 4 * 3 > sizeof(buf)) return false;
	if(text[len - 1] == '=') pad++;
	if(text[len - 2] == '=') pad++;
	got = EVP_DecodeBlock(buf, (const unsigned char *)text, (int)len);
	if(got < 0 || got - pad != want) return false;
	memcpy(out, buf, (size_t)want);
	return true;
}

/* "$7$ITERATIONS$SALT$HASH" or "$6$SALT$HASH" (as mosquitto_passwd writes them) into b; false otherwise. */
static bool parse_hash(char *text, struct binding *b)
{
	char *save = NULL, *kind, *salt, *hash;
	int iterations = 1;

	kind = strtok_r(text, "$", &save);
	if(!kind) return false;
	if(!strcmp(kind, "7")){
		char *count = strtok_r(NULL, "$", &save);
		iterations = count ? atoi(count) : 0;
		if(iterations < 1) return false;
	}else if(strcmp(kind, "6")){
		return false;
	}
	salt = strtok_r(NULL, "$", &save);
	hash = strtok_r(NULL, "$", &save);
	if(!salt || !hash || !decode(salt, b->salt, SALT_LEN) || !decode(hash, b->hash, HASH_LEN)) return false;
	b->hash_type = kind[0] == '7' ? 7 : 6;
	b->iterations = iterations;
	return true;
}

/* The bound logins' password hashes from the password file (a login not found there is never checked). */
static int read_passwords(const char *file, struct bindings *b)
{
	FILE *f;
	char buf[MAX_LINE];
	char *line, *colon, *user;
	int n = 0, rc;
	size_t i;

	f = fopen(file, "r");
	if(!f){
		mosquitto_log_printf(MOSQ_LOG_ERR, "shotclock client ids: cannot read %s: %s", file, strerror(errno));
		return MOSQ_ERR_UNKNOWN;
	}
	while((rc = read_line(f, buf, file, ++n)) == 1){
		if(buf[0] == '#' || !(colon = strchr(buf, ':'))) continue;
		*colon = '\0';
		user = trim(buf);
		line = trim(colon + 1);
		for(i = 0; i < b->count; i++){
			if(b->items[i].hash_type == 0 && !strcmp(b->items[i].username, user)){
				char copy[MAX_LINE];
				strcpy(copy, line);
				parse_hash(copy, &b->items[i]);
			}
		}
	}
	fclose(f);
	return rc == 0 ? MOSQ_ERR_SUCCESS : MOSQ_ERR_UNKNOWN;
}

static int load(struct bindings *out)
{
	int rc;

	memset(out, 0, sizeof(*out));
	rc = read_bindings(bindings_file, out);
	if(rc == MOSQ_ERR_SUCCESS && password_file) rc = read_passwords(password_file, out);
	if(rc != MOSQ_ERR_SUCCESS) free_bindings(out);
	return rc;
}

static bool right_password(const struct binding *b, const char *password)
{
	unsigned char hash[HASH_LEN];

	if(b->hash_type == 0 || password == NULL) return false;
	if(b->hash_type == 7){
		if(!PKCS5_PBKDF2_HMAC(password, (int)strlen(password), b->salt, SALT_LEN, b->iterations, EVP_sha512(),
				HASH_LEN, hash)) return false;
	}else{
		EVP_MD_CTX *ctx = EVP_MD_CTX_new();
		unsigned int len = 0;
		bool ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha512(), NULL)
			&& EVP_DigestUpdate(ctx, password, strlen(password))
			&& EVP_DigestUpdate(ctx, b->salt, SALT_LEN)
			&& EVP_DigestFinal_ex(ctx, hash, &len) && len == HASH_LEN;
		EVP_MD_CTX_free(ctx);
		if(!ok) return false;
	}
	return CRYPTO_memcmp(hash, b->hash, HASH_LEN) == 0;
}

static int on_basic_auth(int event, void *event_data, void *userdata)
{
	struct mosquitto_evt_basic_auth *ed = event_data;
	const char *id = mosquitto_client_id(ed->client);
	const char *user = ed->username;
	const char *address = mosquitto_client_address(ed->client);
	const struct binding *own = NULL, *of_id = NULL, *of_user = NULL;
	size_t i;

	(void)event;
	(void)userdata;
	if(!address) address = "an unknown address";
	for(i = 0; i < current.count; i++){
		const struct binding *b = &current.items[i];
		bool same_id = id && !strcmp(b->client_id, id);
		bool same_user = user && strcmp(b->username, NOBODY) && !strcmp(b->username, user);

		if(same_id) of_id = b;
		if(same_user && !of_user) of_user = b;
		if(same_id && same_user) own = b;
	}
	if(!own && of_id){
		mosquitto_log_printf(MOSQ_LOG_NOTICE, "shotclock client ids: refused %s from %s: client id %s belongs to %s",
				user ? user : "a login without a name", address, id,
				strcmp(of_id->username, NOBODY) ? of_id->username : "no login");
		return MOSQ_ERR_AUTH;
	}
	if(!own && of_user){
		mosquitto_log_printf(MOSQ_LOG_NOTICE, "shotclock client ids: refused %s from %s: client id %s is not its own",
				user, address, id ? id : "(none)");
		return MOSQ_ERR_AUTH;
	}
	if(TELL_TAKEOVER && own && right_password(own, ed->password)
			&& mosquitto_kick_client_by_clientid(id, true) == MOSQ_ERR_SUCCESS){
		mosquitto_log_printf(MOSQ_LOG_NOTICE, "shotclock client ids: %s connects again as %s from %s: the "
				"connection that held its session was told it is taken (DISCONNECT 0x98)",
				user, id, address);
	}
	return MOSQ_ERR_PLUGIN_DEFER;
}

static int on_reload(int event, void *event_data, void *userdata)
{
	struct bindings fresh;

	(void)event;
	(void)event_data;
	(void)userdata;
	if(load(&fresh) != MOSQ_ERR_SUCCESS){
		mosquitto_log_printf(MOSQ_LOG_WARNING, "shotclock client ids: %s not read again: the bindings read "
				"before stay in force (%lu)", bindings_file, (unsigned long)current.count);
		return MOSQ_ERR_PLUGIN_DEFER;
	}
	free_bindings(&current);
	current = fresh;
	mosquitto_log_printf(MOSQ_LOG_NOTICE, "shotclock client ids: %lu bindings from %s",
			(unsigned long)current.count, bindings_file);
	return MOSQ_ERR_PLUGIN_DEFER;
}

int mosquitto_plugin_version(int supported_version_count, const int *supported_versions)
{
	int i;

	for(i = 0; i < supported_version_count; i++){
		if(supported_versions[i] == 5) return 5;
	}
	return -1;
}

int mosquitto_plugin_init(mosquitto_plugin_id_t *identifier, void **userdata, struct mosquitto_opt *options,
		int option_count)
{
	int i, rc;

	(void)userdata;
	plugin_id = identifier;
	for(i = 0; i < option_count; i++){
		if(!strcmp(options[i].key, "bindings")) bindings_file = strdup(options[i].value);
		else if(!strcmp(options[i].key, "password_file")) password_file = strdup(options[i].value);
	}
	if(!bindings_file){
		mosquitto_log_printf(MOSQ_LOG_ERR, "shotclock client ids: give plugin_opt_bindings FILE");
		return MOSQ_ERR_INVAL;
	}
	rc = load(&current);
	if(rc != MOSQ_ERR_SUCCESS) return rc;
	mosquitto_log_printf(MOSQ_LOG_NOTICE, "shotclock client ids: %lu bindings from %s%s",
			(unsigned long)current.count, bindings_file,
			TELL_TAKEOVER && password_file ? "; a session taken over is told (0x98)" : "");
	rc = mosquitto_callback_register(plugin_id, MOSQ_EVT_BASIC_AUTH, on_basic_auth, NULL, NULL);
	if(rc == MOSQ_ERR_SUCCESS) rc = mosquitto_callback_register(plugin_id, MOSQ_EVT_RELOAD, on_reload, NULL, NULL);
	return rc;
}

int mosquitto_plugin_cleanup(void *userdata, struct mosquitto_opt *options, int option_count)
{
	(void)userdata;
	(void)options;
	(void)option_count;
	mosquitto_callback_unregister(plugin_id, MOSQ_EVT_BASIC_AUTH, on_basic_auth, NULL);
	mosquitto_callback_unregister(plugin_id, MOSQ_EVT_RELOAD, on_reload, NULL);
	free_bindings(&current);
	free(bindings_file);
	free(password_file);
	bindings_file = password_file = NULL;
	return MOSQ_ERR_SUCCESS;
}
