package org.packyard.hosting;

import io.vertx.core.json.JsonObject;

/**
 * How an upload or delete ended: {@code status} is the HTTP status to answer (201 added, 200
 * already there or removed), {@code snapshot} the published snapshot that has the change (or, when
 * nothing changed, the one that already had it).
 */
public record Outcome(int status, JsonObject body) {}
