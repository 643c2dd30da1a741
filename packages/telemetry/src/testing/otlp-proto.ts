import protobuf from 'protobufjs';

/**
 * The part of the OTLP protobuf schema a trace export uses (opentelemetry-proto:
 * collector/trace/v1, trace/v1, common/v1, resource/v1), with the upstream field numbers, for
 * protobufjs to decode what an exporter sent. Links and dropped counts are left out: the decoder
 * skips fields it does not know.
 */
const SCHEMA = `
syntax = "proto3";
package otlp;

message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    KeyValueList kvlist_value = 6;
    bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; }
message Resource { repeated KeyValue attributes = 1; }

message Status { string message = 2; int32 code = 3; }
message Event {
  fixed64 time_unix_nano = 1;
  string name = 2;
  repeated KeyValue attributes = 3;
}
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  bytes parent_span_id = 4;
  string name = 5;
  int32 kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  repeated Event events = 11;
  Status status = 15;
  fixed32 flags = 16;
}
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
`;

const request = protobuf.parse(SCHEMA).root.lookupType('otlp.ExportTraceServiceRequest');

/**
 * An `ExportTraceServiceRequest` in protobuf as the OTLP/JSON object of the same request
 * (camelCase names, ids in hex, 64-bit integers as strings), so both encodings are read alike.
 */
export function decodeProtobufExport(bytes: Uint8Array): unknown {
  const message = request.decode(bytes);
  const object = request.toObject(message, { longs: String, bytes: Array, oneofs: false });
  return hexIds(object);
}

const ID_FIELDS = new Set(['traceId', 'spanId', 'parentSpanId']);

function hexIds(value: unknown, key?: string): unknown {
  if (key !== undefined && ID_FIELDS.has(key) && Array.isArray(value)) {
    return Buffer.from(value as number[]).toString('hex');
  }
  if (Array.isArray(value)) return value.map((item) => hexIds(item));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, hexIds(v, k)]));
  }
  return value;
}
