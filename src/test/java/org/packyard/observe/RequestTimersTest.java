package org.packyard.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Every request's duration lands in the one series of its route, method and status. */
class RequestTimersTest {
  @Test
  void eachRouteMethodAndStatus_isOneSeries_sharedByEveryObserver_whateverTheRecentTableHolds() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RequestTimers a = new RequestTimers(registry), b = new RequestTimers(registry);
    // More keys than the table has slots, so that entries evict each other.
    List<String> routes = new ArrayList<>();
    for (int i = 0; i < 40; i++) routes.add(("/r" + i + "/{name}").intern());
    int[] statuses = {200, 304, 404};
    for (int round = 0; round < 3; round++) {
      for (String r : routes) {
        for (int s : statuses) {
          a.timer(r, "GET", s).record(1, TimeUnit.MILLISECONDS);
          b.timer(r, "HEAD", s).record(1, TimeUnit.MILLISECONDS);
          b.timer(r, "GET", s).record(1, TimeUnit.MILLISECONDS);
        }
      }
    }
    assertThat(registry.find("http.server.request.duration").timers()).hasSize(routes.size() * statuses.length * 2);
    for (String r : routes) {
      for (int s : statuses) {
        Timer get = registry.get("http.server.request.duration").tag("http.route", r).tag("http.request.method", "GET")
            .tag("http.response.status_code", Integer.toString(s)).timer();
        Timer head = registry.get("http.server.request.duration").tag("http.route", r).tag("http.request.method", "HEAD")
            .tag("http.response.status_code", Integer.toString(s)).timer();
        assertThat(get.count()).as("GET %s %d", r, s).isEqualTo(6);
        assertThat(head.count()).as("HEAD %s %d", r, s).isEqualTo(3);
      }
    }
    // A route string equal to a known one but another instance still finds the same series.
    String copy = new String(routes.get(0));
    a.timer(copy, "GET", 200).record(1, TimeUnit.MILLISECONDS);
    assertThat(registry.get("http.server.request.duration").tag("http.route", routes.get(0)).tag("http.request.method", "GET")
        .tag("http.response.status_code", "200").timer().count()).isEqualTo(7);
  }
}
