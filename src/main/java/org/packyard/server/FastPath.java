package org.packyard.server;

import io.vertx.core.http.HttpServerRequest;
import java.util.function.Predicate;

/**
 * A handler tried ahead of the router for the hottest requests (an mdapi package hit, a stored
 * file): it answers the request and returns true, or returns false and the router answers it.
 * {@code route} says what it serves, like a router path ({@code GET /repos/{name}/{file}}), so
 * that the fast paths are listed beside the router's routes (the access matrix test checks both).
 */
public record FastPath(String route, Predicate<HttpServerRequest> serve) {}
