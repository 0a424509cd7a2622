#!/usr/bin/env bash
# Apache Cassandra 5.0 as the CQL server for tests and benchmarks, from Maven Central (no
# ScyllaDB package reaches this machine; the same schema.cql and driver run on both).
#
#   scripts/lib/cassandra.sh fetch               # jars into $AMORA_CACHE/cassandra/<version>/lib
#   scripts/lib/cassandra.sh start DIR [PORT]    # start one node on 127.0.0.1:PORT (9042),
#                                                # data and logs in DIR; prints its pid when ready
#   scripts/lib/cassandra.sh stop DIR            # stop the node started in DIR
#
# Sourced by scripts/test, which starts a node for the store conformance suite and the
# multi-node tests. `start` waits for the native protocol port (about 30–60 s on two cores).
# The jars (about 60 MB) and Maven's local repository stay in the cache, outside the repo.

if [ -z "${REPO_ROOT:-}" ]; then
  # shellcheck source=common.sh
  source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
fi

CASSANDRA_VERSION="${CASSANDRA_VERSION:-5.0.9}"

cassandra_log() { printf '== %s\n' "$*" >&2; }

# Prints the folder of Cassandra's jars, downloading them with Maven on first use.
fetch_cassandra() {
  local root="$AMORA_CACHE/cassandra/$CASSANDRA_VERSION"
  if [ -f "$root/lib/.complete" ]; then
    echo "$root/lib"
    return 0
  fi
  command -v java >/dev/null || apt_install openjdk-17-jdk-headless >&2
  command -v mvn >/dev/null || apt_install maven >&2
  mkdir -p "$root"
  cat >"$root/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.amora</groupId>
  <artifactId>cassandra-runtime</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.cassandra</groupId>
      <artifactId>cassandra-all</artifactId>
      <version>$CASSANDRA_VERSION</version>
    </dependency>
  </dependencies>
</project>
POM
  cassandra_log "fetching cassandra-all $CASSANDRA_VERSION and its dependencies from Maven Central"
  rm -rf "$root/lib"
  mvn -q -B -f "$root/pom.xml" -Dmaven.repo.local="$AMORA_CACHE/m2" \
    org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies \
    -DoutputDirectory="$root/lib" -DincludeScope=runtime >&2 \
    || die "fetching Cassandra $CASSANDRA_VERSION with Maven failed"
  touch "$root/lib/.complete"
  echo "$root/lib"
}

# The JPMS flags of Cassandra 5.0's conf/jvm17-server.options, which the daemon needs on JDK 17.
CASSANDRA_JVM17_FLAGS=(
  -Djdk.attach.allowAttachSelf=true
  --add-exports java.base/jdk.internal.misc=ALL-UNNAMED
  --add-exports java.management.rmi/com.sun.jmx.remote.internal.rmi=ALL-UNNAMED
  --add-exports java.rmi/sun.rmi.registry=ALL-UNNAMED
  --add-exports java.rmi/sun.rmi.server=ALL-UNNAMED
  --add-exports java.sql/java.sql=ALL-UNNAMED
  --add-exports java.base/java.lang.ref=ALL-UNNAMED
  --add-exports jdk.unsupported/sun.misc=ALL-UNNAMED
  --add-exports jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED
  --add-exports jdk.attach/sun.tools.attach=ALL-UNNAMED
  --add-opens java.base/java.lang.module=ALL-UNNAMED
  --add-opens java.base/jdk.internal.loader=ALL-UNNAMED
  --add-opens java.base/jdk.internal.ref=ALL-UNNAMED
  --add-opens java.base/jdk.internal.reflect=ALL-UNNAMED
  --add-opens java.base/jdk.internal.math=ALL-UNNAMED
  --add-opens java.base/jdk.internal.module=ALL-UNNAMED
  --add-opens java.base/jdk.internal.util.jar=ALL-UNNAMED
  --add-opens jdk.management/com.sun.management.internal=ALL-UNNAMED
  --add-opens java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens java.base/java.io=ALL-UNNAMED
  --add-opens java.base/java.lang.reflect=ALL-UNNAMED
  --add-opens jdk.compiler/com.sun.tools.javac=ALL-UNNAMED
  --add-opens java.base/java.lang=ALL-UNNAMED
  --add-opens java.base/java.util=ALL-UNNAMED
  -Dio.netty.tryReflectionSetAccessible=true
)

# Starts one Cassandra node on loopback with its data in DIR and waits until it serves CQL.
# Prints the daemon's pid.
start_cassandra() {
  local dir="$1" port="${2:-9042}"
  local lib
  lib="$(fetch_cassandra)"
  mkdir -p "$dir/data" "$dir/commitlog" "$dir/saved_caches" "$dir/hints" "$dir/cdc" "$dir/logs"
  local storage_port=$((port + 10000))
  # A minimal single-node configuration: loopback only, small caches, no authentication.
  cat >"$dir/cassandra.yaml" <<YAML
cluster_name: amora-test
num_tokens: 16
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
data_file_directories: [$dir/data]
commitlog_directory: $dir/commitlog
saved_caches_directory: $dir/saved_caches
hints_directory: $dir/hints
cdc_raw_directory: $dir/cdc
commitlog_sync: periodic
commitlog_sync_period: 10000ms
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "127.0.0.1:$storage_port"
listen_address: 127.0.0.1
rpc_address: 127.0.0.1
storage_port: $storage_port
native_transport_port: $port
start_native_transport: true
endpoint_snitch: SimpleSnitch
authenticator: AllowAllAuthenticator
authorizer: AllowAllAuthorizer
concurrent_reads: 8
concurrent_writes: 8
key_cache_size: 8MiB
# Prepared statements are per keyspace and the conformance suite makes one keyspace per
# test (about 220 statements each): with the default cache (10 MiB on this heap) the
# cache's admission policy evicted a new keyspace's statements as soon as they were
# prepared, and tests failed with "prepared query ... not found".
prepared_statements_cache_size: 128MiB
# A test node holds a keyspace per test (the API tests' and the conformance suite's, about
# 30 tables each, over 1,500 tables by the end of a run) on a machine whose two cores the
# test binaries share: with the default 2 s write timeout, a write that waited behind a
# garbage collection or a schema change failed the test ("received only 0 responses").
write_request_timeout: 10000ms
cas_contention_timeout: 10000ms
# Each table's memtable took a 1 MiB slab of heap on its first write: with a keyspace per
# test (over 5,000 tables by the end of a run) the 4 GiB heap filled, old-generation
# collections ran 80-106 s and every request timed out ("client timeout of 30000ms").
# Unslabbed, an idle table holds only what it stores: 1.5 GiB live after the conformance
# suite's 72 keyspaces (about 380 KiB a table, mostly its metrics); the heap's 6 GiB leave
# room for the API tests' keyspaces beside them.
memtable_allocation_type: unslabbed_heap_buffers
YAML
  # Without a logback configuration Cassandra logs at DEBUG, and every schema change then
  # writes the metadata of every keyspace: with a keyspace per test that grew quadratically
  # (59 MB after ten keyspaces) and took CPU from the tests. Warnings and errors are kept.
  cat >"$dir/logback.xml" <<'XML'
<configuration>
  <appender name="STDOUT" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n</pattern></encoder>
  </appender>
  <root level="WARN"><appender-ref ref="STDOUT"/></root>
</configuration>
XML
  cassandra_log "starting Cassandra $CASSANDRA_VERSION on 127.0.0.1:$port (data in $dir)"
  # Single node on loopback: no ring delay, no waiting for gossip to settle; the system
  # tables (where schema changes go) are written without waiting for the disk, as
  # Cassandra's own test suites run (`cassandra.unsafesystem`): a test node's data is
  # thrown away with it.
  nohup java -Xms2g -Xmx6g -XX:+UseG1GC -XX:MaxGCPauseMillis=300 -Xss512k \
    "${CASSANDRA_JVM17_FLAGS[@]}" \
    -Dcassandra.config="file://$dir/cassandra.yaml" \
    -Dcassandra.storagedir="$dir" \
    -Dcassandra.logdir="$dir/logs" \
    -Dcassandra-foreground=yes \
    -Dcassandra.skip_wait_for_gossip_to_settle=0 \
    -Dcassandra.ring_delay_ms=0 \
    -Dcassandra.initial_token=0 \
    -Dlogback.configurationFile="file://$dir/logback.xml" \
    -Dcassandra.unsafesystem=true \
    -Dcassandra.jmx.local.port="$((port + 20000))" \
    -cp "$lib/*" org.apache.cassandra.service.CassandraDaemon \
    >"$dir/logs/stdout.log" 2>&1 &
  local pid=$!
  echo "$pid" >"$dir/cassandra.pid"
  local waited=0
  until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -n 40 "$dir/logs/stdout.log" >&2
      die "Cassandra exited during start-up (log: $dir/logs/stdout.log)"
    fi
    if [ "$waited" -ge 240 ]; then
      tail -n 40 "$dir/logs/stdout.log" >&2
      kill "$pid" 2>/dev/null
      die "Cassandra did not open port $port within 240 s"
    fi
    sleep 1
    waited=$((waited + 1))
  done
  cassandra_log "Cassandra serves CQL on 127.0.0.1:$port after ${waited}s"
  echo "$pid"
}

stop_cassandra() {
  local dir="$1"
  [ -f "$dir/cassandra.pid" ] || return 0
  local pid
  pid="$(cat "$dir/cassandra.pid")"
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$dir/cassandra.pid"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  case "${1:-}" in
    fetch) fetch_cassandra ;;
    start) start_cassandra "${2:?usage: $0 start DIR [PORT]}" "${3:-9042}" ;;
    stop) stop_cassandra "${2:?usage: $0 stop DIR}" ;;
    *) die "usage: $0 fetch | start DIR [PORT] | stop DIR" ;;
  esac
fi
