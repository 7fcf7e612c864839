-- The W3C traceparent of the request that wrote an account event, when tracing is on (docs/tracing.md): the
-- webhook deliveries of the event run later, from the queue, and carry it on so that each delivery's span and
-- the receiver's own spans belong to the request's trace. NULL when tracing is off or outside a request.
ALTER TABLE account_events ADD COLUMN traceparent text;
