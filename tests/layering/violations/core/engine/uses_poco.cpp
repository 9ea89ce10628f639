#include <Poco/Net/HTTPServer.h>
