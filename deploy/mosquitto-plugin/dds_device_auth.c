/*
 * dds_device_auth: a Mosquitto 2.0 plugin that logs devices in against the service's own
 * credential store in Redis and confines each to its own topics (docs/broker-credentials.md).
 *
 * A username that is a device id (a UUID) logs in when the SHA-256 of its password is the
 * device's staged token hash, or else its token hash (HMGET device:{s<k>}:<id>, the key of
 * common/redis-keys.ts). The Redis servers listed are asked in turn until one knows the device;
 * when none does and one did not answer, the device is refused; when every one answered that it
 * does not know it, it is left to the next plugin, as is any other username (the service, the
 * dynamic-security admin). Adding a device is writing its Redis record: the broker stores nothing.
 * The admin named by plugin_opt_admin publishes {"commands":[{"command":"kickClient",
 * "username":…,"correlationData":…}]} on $CONTROL/dds-device-auth/v1 to drop a device's session.
 *
 * Until a service client (any username that is not a device id) has subscribed to the devices'
 * pin topics since the broker started, what devices publish is also kept, up to
 * plugin_opt_hold_until_service messages, and published again in order once it has: Mosquitto 2.0
 * restores a persisted session without its shared subscriptions, so after a restart the gateways
 * must subscribe again, and a device that reconnected first would have its acknowledged values
 * routed to nobody (docs/operations.md, "Broker").
 *
 * Options: plugin_opt_redis host:port[,host:port…] (Redis Cluster nodes are fine: MOVED is
 * followed, so list a few seeds; a test broker lists a Redis and a Redis Cluster),
 * plugin_opt_topic_root (default dds; `+` takes any first level), plugin_opt_admin (default: the
 * environment's MQTT_DYNSEC_USERNAME, as in docker-compose.yml), plugin_opt_hold_until_service
 * (default 0: nothing is held).
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include <hiredis/hiredis.h>
#include <openssl/sha.h>
#include <mosquitto.h>
#include <mosquitto_broker.h>
#include <mosquitto_plugin.h>

#define CONTROL_TOPIC "$CONTROL/dds-device-auth/v1"
#define SHARDS 16
#define MAX_REDIRECTS 3
#define MAX_SOURCES 4

/* A Redis holding devices (a test broker may read two: a Redis and a Redis Cluster). */
struct source {
	char host[256];
	int port;
	redisContext *redis;
};

static mosquitto_plugin_id_t *plugin_id;
static struct source sources[MAX_SOURCES];
static int source_count;
static char topic_root[128] = "dds";
static char admin[128] = "";

/* A device's message kept until a service client subscribes (plugin_opt_hold_until_service). */
struct held {
	char *topic;
	void *payload;
	uint32_t payloadlen;
	uint8_t qos;
	bool retain;
	struct held *next;
};

static long hold_max;
static long held_count;
static bool service_subscribed;
static bool released;
static struct held *held_first, *held_last;

int mosquitto_plugin_version(int count, const int *versions)
{
	for(int i = 0; i < count; i++) if(versions[i] == 5) return 5;
	return -1;
}

static int is_device_id(const char *username)
{
	if(username == NULL || strlen(username) != 36) return 0;
	for(int i = 0; i < 36; i++){
		char c = username[i];
		if(i == 8 || i == 13 || i == 18 || i == 23){ if(c != '-') return 0; }
		else if(!isxdigit((unsigned char)c)) return 0;
	}
	return 1;
}

static unsigned shard_of(const char *id)
{
	unsigned h = 0x811c9dc5u;
	for(const unsigned char *p = (const unsigned char *)id; *p; p++){ h ^= *p; h *= 0x01000193u; }
	return h % SHARDS;
}

static redisContext *connect_to(const char *host, int port)
{
	struct timeval timeout = {0, 500000};
	redisContext *ctx = redisConnectWithTimeout(host, port, timeout);
	if(ctx == NULL || ctx->err){
		mosquitto_log_printf(MOSQ_LOG_WARNING, "dds_device_auth: Redis %s:%d unreachable", host, port);
		if(ctx) redisFree(ctx);
		return NULL;
	}
	redisSetTimeout(ctx, timeout);
	return ctx;
}

/* HMGET key tokenHash stagedTokenHash on the node that holds key, following MOVED/ASK. */
static redisReply *device_hashes(struct source *src, const char *key)
{
	char host[sizeof(src->host)];
	int port = src->port;
	memcpy(host, src->host, sizeof(host));
	for(int hop = 0; hop <= MAX_REDIRECTS; hop++){
		if(src->redis == NULL) src->redis = connect_to(host, port);
		if(src->redis == NULL) return NULL;
		redisReply *reply = redisCommand(src->redis, "HMGET %s tokenHash stagedTokenHash", key);
		if(reply == NULL){ redisFree(src->redis); src->redis = NULL; continue; }
		if(reply->type == REDIS_REPLY_ERROR && (!strncmp(reply->str, "MOVED ", 6) || !strncmp(reply->str, "ASK ", 4))){
			const char *address = strchr(strchr(reply->str, ' ') + 1, ' ');
			const char *colon = address ? strrchr(address, ':') : NULL;
			if(colon == NULL || colon - address - 1 >= (long)sizeof(host)){ freeReplyObject(reply); return NULL; }
			snprintf(host, sizeof(host), "%.*s", (int)(colon - address - 1), address + 1);
			port = atoi(colon + 1);
			freeReplyObject(reply);
			redisFree(src->redis);
			src->redis = NULL;
			continue;
		}
		return reply;
	}
	return NULL;
}

static void sha256_hex(const char *text, char out[65])
{
	unsigned char digest[SHA256_DIGEST_LENGTH];
	SHA256((const unsigned char *)text, strlen(text), digest);
	for(int i = 0; i < SHA256_DIGEST_LENGTH; i++) sprintf(out + 2 * i, "%02x", digest[i]);
}

static int same_hash(const char *a, const char *b)
{
	if(strlen(a) != 64 || strlen(b) != 64) return 0;
	unsigned diff = 0;
	for(int i = 0; i < 64; i++) diff |= (unsigned char)(a[i] ^ b[i]);
	return diff == 0;
}

static int on_basic_auth(int event, void *event_data, void *userdata)
{
	struct mosquitto_evt_basic_auth *ed = event_data;
	(void)event; (void)userdata;
	if(!is_device_id(ed->username)) return MOSQ_ERR_PLUGIN_DEFER;
	if(ed->password == NULL) return MOSQ_ERR_AUTH;
	char key[80], given[65];
	snprintf(key, sizeof(key), "device:{s%u}:%s", shard_of(ed->username), ed->username);
	sha256_hex(ed->password, given);
	int unanswered = 0;
	for(int i = 0; i < source_count; i++){
		redisReply *reply = device_hashes(&sources[i], key);
		if(reply == NULL || reply->type != REDIS_REPLY_ARRAY || reply->elements != 2){
			mosquitto_log_printf(MOSQ_LOG_WARNING, "dds_device_auth: no answer from Redis %s:%d", sources[i].host, sources[i].port);
			if(reply) freeReplyObject(reply);
			unanswered++;
			continue;
		}
		redisReply *current = reply->element[0], *staged = reply->element[1];
		redisReply *expected = staged->type == REDIS_REPLY_STRING ? staged : current;
		int known = expected->type == REDIS_REPLY_STRING;
		int rc = known && same_hash(given, expected->str) ? MOSQ_ERR_SUCCESS : MOSQ_ERR_AUTH;
		freeReplyObject(reply);
		if(known) return rc;
	}
	return unanswered > 0 ? MOSQ_ERR_AUTH : MOSQ_ERR_PLUGIN_DEFER;
}

/* The part of topic after "{root}/{username}/", or NULL when topic is not under it. */
static const char *own_suffix(const char *topic, const char *username)
{
	size_t user_len = strlen(username);
	if(!strcmp(topic_root, "+")){
		const char *slash = strchr(topic, '/');
		if(slash == NULL || slash == topic || memchr(topic, '+', slash - topic) || memchr(topic, '#', slash - topic)) return NULL;
		topic = slash + 1;
	}else{
		size_t root_len = strlen(topic_root);
		if(strncmp(topic, topic_root, root_len) || topic[root_len] != '/') return NULL;
		topic += root_len + 1;
	}
	if(strncmp(topic, username, user_len) || topic[user_len] != '/') return NULL;
	return topic + user_len + 1;
}

/* "pin/{one level}" followed by exactly `tail` ("" or "/set"). */
static int is_pin_topic(const char *suffix, const char *tail)
{
	if(strncmp(suffix, "pin/", 4)) return 0;
	const char *level = suffix + 4, *end = strchr(level, '/');
	size_t len = end ? (size_t)(end - level) : strlen(level);
	if(len == 0 || memchr(level, '#', len)) return 0;
	return strcmp(level + len, tail) == 0;
}

static int device_may(int access, const char *suffix)
{
	switch(access){
		case MOSQ_ACL_WRITE:
			return (is_pin_topic(suffix, "") && !strchr(suffix + 4, '+')) || !strcmp(suffix, "status") || !strcmp(suffix, "info") ||
				!strcmp(suffix, "ack") || !strcmp(suffix, "ota/status");
		case MOSQ_ACL_READ:
		case MOSQ_ACL_SUBSCRIBE:
			return is_pin_topic(suffix, "/set") || !strcmp(suffix, "ota");
		case MOSQ_ACL_UNSUBSCRIBE:
			return 1;
		default:
			return 0;
	}
}

/* A filter ending in "/+/pin/+": the service's subscription to every device's values (shared or not). */
static int is_pin_filter(const char *topic)
{
	size_t len = strlen(topic), tail = strlen("/+/pin/+");
	return len >= tail && !strcmp(topic + len - tail, "/+/pin/+");
}

static int on_acl_check(int event, void *event_data, void *userdata)
{
	struct mosquitto_evt_acl_check *ed = event_data;
	const char *username = mosquitto_client_username(ed->client);
	(void)event; (void)userdata;
	if(!is_device_id(username)){
		int is_admin = username && admin[0] && !strcmp(username, admin);
		if(is_admin && ed->access == MOSQ_ACL_WRITE && !strcmp(ed->topic, CONTROL_TOPIC)) return MOSQ_ERR_SUCCESS;
		if(is_admin && ed->access != MOSQ_ACL_WRITE && !strcmp(ed->topic, CONTROL_TOPIC "/response")) return MOSQ_ERR_SUCCESS;
		if(ed->access == MOSQ_ACL_SUBSCRIBE && is_pin_filter(ed->topic)) service_subscribed = true;
		return MOSQ_ERR_PLUGIN_DEFER;
	}
	const char *suffix = own_suffix(ed->topic, username);
	return suffix && device_may(ed->access, suffix) ? MOSQ_ERR_SUCCESS : MOSQ_ERR_ACL_DENIED;
}

/* A device's message while no service client has subscribed yet: routed as usual, and a copy kept. */
static int on_message(int event, void *event_data, void *userdata)
{
	struct mosquitto_evt_message *ed = event_data;
	(void)event; (void)userdata;
	if(released || !is_device_id(mosquitto_client_username(ed->client))) return MOSQ_ERR_SUCCESS;
	if(held_count >= hold_max){
		if(held_count == hold_max) mosquitto_log_printf(MOSQ_LOG_WARNING, "dds_device_auth: %ld device messages held, no more kept", hold_max);
		held_count = hold_max + 1;
		return MOSQ_ERR_SUCCESS;
	}
	struct held *h = calloc(1, sizeof(*h));
	if(h == NULL || (h->topic = strdup(ed->topic)) == NULL || (ed->payloadlen && (h->payload = malloc(ed->payloadlen)) == NULL)){
		if(h){ free(h->topic); free(h); }
		return MOSQ_ERR_SUCCESS;
	}
	if(ed->payloadlen) memcpy(h->payload, ed->payload, ed->payloadlen);
	h->payloadlen = ed->payloadlen;
	h->qos = ed->qos;
	h->retain = ed->retain;
	if(held_last) held_last->next = h;
	else held_first = h;
	held_last = h;
	held_count++;
	return MOSQ_ERR_SUCCESS;
}

/* After the loop turn in which a service client subscribed: the held messages go out again, in order. */
static int on_tick(int event, void *event_data, void *userdata)
{
	(void)event; (void)event_data; (void)userdata;
	if(released || !service_subscribed) return MOSQ_ERR_SUCCESS;
	released = true;
	long count = 0;
	for(struct held *h = held_first, *next; h; h = next){
		next = h->next;
		mosquitto_broker_publish_copy(NULL, h->topic, (int)h->payloadlen, h->payload, h->qos, h->retain, NULL);
		free(h->topic);
		free(h->payload);
		free(h);
		count++;
	}
	held_first = held_last = NULL;
	mosquitto_log_printf(MOSQ_LOG_NOTICE, "dds_device_auth: a service client subscribed; %ld held device messages published again", count);
	return MOSQ_ERR_SUCCESS;
}

static void add_response(cJSON *responses, const char *command, const char *error, cJSON *correlation)
{
	cJSON *response = cJSON_CreateObject();
	cJSON_AddStringToObject(response, "command", command);
	if(error) cJSON_AddStringToObject(response, "error", error);
	if(cJSON_IsString(correlation)) cJSON_AddStringToObject(response, "correlationData", correlation->valuestring);
	cJSON_AddItemToArray(responses, response);
}

static int on_control(int event, void *event_data, void *userdata)
{
	struct mosquitto_evt_control *ed = event_data;
	const char *username = mosquitto_client_username(ed->client);
	(void)event; (void)userdata;
	if(!username || !admin[0] || strcmp(username, admin)) return MOSQ_ERR_ACL_DENIED;
	cJSON *tree = cJSON_ParseWithLength(ed->payload, ed->payloadlen);
	cJSON *commands = cJSON_GetObjectItem(tree, "commands");
	if(!cJSON_IsArray(commands)){ cJSON_Delete(tree); return MOSQ_ERR_INVAL; }
	cJSON *answer = cJSON_CreateObject(), *responses = cJSON_AddArrayToObject(answer, "responses");
	cJSON *command;
	cJSON_ArrayForEach(command, commands){
		cJSON *name = cJSON_GetObjectItem(command, "command"), *user = cJSON_GetObjectItem(command, "username");
		cJSON *correlation = cJSON_GetObjectItem(command, "correlationData");
		if(!cJSON_IsString(name) || strcmp(name->valuestring, "kickClient")){
			add_response(responses, cJSON_IsString(name) ? name->valuestring : "", "Unknown command", correlation);
		}else if(!cJSON_IsString(user) || !is_device_id(user->valuestring)){
			add_response(responses, "kickClient", "Invalid username", correlation);
		}else{
			mosquitto_kick_client_by_username(user->valuestring, false);
			add_response(responses, "kickClient", NULL, correlation);
		}
	}
	char *payload = cJSON_PrintUnformatted(answer);
	mosquitto_broker_publish_copy(NULL, CONTROL_TOPIC "/response", (int)strlen(payload), payload, 0, false, NULL);
	free(payload);
	cJSON_Delete(answer);
	cJSON_Delete(tree);
	return MOSQ_ERR_SUCCESS;
}

int mosquitto_plugin_init(mosquitto_plugin_id_t *identifier, void **userdata, struct mosquitto_opt *opts, int count)
{
	(void)userdata;
	plugin_id = identifier;
	for(int i = 0; i < count; i++){
		if(!strcmp(opts[i].key, "redis")){
			for(const char *item = opts[i].value; item && *item && source_count < MAX_SOURCES; ){
				const char *end = strchr(item, ','), *colon = memchr(item, ':', end ? (size_t)(end - item) : strlen(item));
				if(colon == NULL) return MOSQ_ERR_INVAL;
				struct source *src = &sources[source_count++];
				snprintf(src->host, sizeof(src->host), "%.*s", (int)(colon - item), item);
				src->port = atoi(colon + 1);
				item = end ? end + 1 : NULL;
			}
		}else if(!strcmp(opts[i].key, "topic_root")){
			snprintf(topic_root, sizeof(topic_root), "%s", opts[i].value);
		}else if(!strcmp(opts[i].key, "admin")){
			snprintf(admin, sizeof(admin), "%s", opts[i].value);
		}else if(!strcmp(opts[i].key, "hold_until_service")){
			hold_max = atol(opts[i].value);
		}
	}
	if(!admin[0] && getenv("MQTT_DYNSEC_USERNAME")) snprintf(admin, sizeof(admin), "%s", getenv("MQTT_DYNSEC_USERNAME"));
	if(source_count == 0) return MOSQ_ERR_INVAL;
	mosquitto_log_printf(MOSQ_LOG_NOTICE, "dds_device_auth: devices from Redis %s:%d, topic root %s", sources[0].host, sources[0].port,
			topic_root);
	if(mosquitto_callback_register(plugin_id, MOSQ_EVT_BASIC_AUTH, on_basic_auth, NULL, NULL)) return MOSQ_ERR_UNKNOWN;
	if(mosquitto_callback_register(plugin_id, MOSQ_EVT_ACL_CHECK, on_acl_check, NULL, NULL)) return MOSQ_ERR_UNKNOWN;
	released = hold_max <= 0;
	if(!released && (mosquitto_callback_register(plugin_id, MOSQ_EVT_MESSAGE, on_message, NULL, NULL) ||
			mosquitto_callback_register(plugin_id, MOSQ_EVT_TICK, on_tick, NULL, NULL))) return MOSQ_ERR_UNKNOWN;
	return mosquitto_callback_register(plugin_id, MOSQ_EVT_CONTROL, on_control, CONTROL_TOPIC, NULL);
}

int mosquitto_plugin_cleanup(void *userdata, struct mosquitto_opt *opts, int count)
{
	(void)userdata; (void)opts; (void)count;
	for(int i = 0; i < source_count; i++) if(sources[i].redis) redisFree(sources[i].redis);
	source_count = 0;
	mosquitto_callback_unregister(plugin_id, MOSQ_EVT_BASIC_AUTH, on_basic_auth, NULL);
	mosquitto_callback_unregister(plugin_id, MOSQ_EVT_ACL_CHECK, on_acl_check, NULL);
	if(hold_max > 0){
		mosquitto_callback_unregister(plugin_id, MOSQ_EVT_MESSAGE, on_message, NULL);
		mosquitto_callback_unregister(plugin_id, MOSQ_EVT_TICK, on_tick, NULL);
	}
	return mosquitto_callback_unregister(plugin_id, MOSQ_EVT_CONTROL, on_control, CONTROL_TOPIC);
}
